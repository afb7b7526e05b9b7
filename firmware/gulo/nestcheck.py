# What differs between the eggs in the bowl and the nest the game expects, from one settled
# weight: the check the turn flow makes after a resume (docs/play-page.md "After a restart").
# Pure logic, integer centigrams (the ESP32's single-precision floats never round a sum of eggs);
# the search allocates nothing but the change it keeps.
#
#   d = differ(off_g, nest, full, masses, tol_g)
#       off_g  grams the bowl's eggs weigh beyond the game's `nest` (negative: eggs missing)
#       ->  {}                 the weight is the game's nest
#           {"R": -1, "Y": 1}  the fewest eggs that explain it: a red egg missing, a yellow too many
#           None               nothing fits within tol_g, or another change of as many eggs or of
#                              one egg more fits too (the weight cannot tell them apart: 36 g is
#                              two blue eggs, or two green and a red one, and a family that took
#                              three eggs must not be asked for two it never took)
#   asked(d, nest, full) -> the prompt's eggs: {"back": {...}, "out": {...}} (see there)


def differ(off_g, nest, full, masses, tol_g):
    """The fewest eggs per colour whose weight is `off_g` within `tol_g`, when no other change
    of at most one egg more fits (see the module)."""
    cols = [c for c in full]
    s = _Search([int(masses[c] * 100 + 0.5) for c in cols],
                [-nest[c] for c in cols],            # every egg of the colour gone from the bowl
                [full[c] - nest[c] for c in cols],   # every egg of the colour back in it
                int(tol_g * 100))
    s.run(0, int(off_g * 100 + (0.5 if off_g >= 0 else -0.5)), 0)
    if s.best is None or s.second <= s.fewest + _SPARE:
        return None
    d = {}
    for i in range(len(cols)):
        if s.best[i]:
            d[cols[i]] = s.best[i]
    return d


# A change that fits with this many eggs more than the fewest makes the weight ambiguous. One:
# eggs are taken and put back one by one, so the change a family made is rarely far from the
# fewest that fit; a change of two eggs more is not looked for (it would make nearly every
# weight of two eggs or more ambiguous, and the search longer).
_SPARE = 1


class _Search:
    """A depth-first search over the colours, fewest eggs first, cut by the fewest eggs found so
    far plus _SPARE (and the eggs the weight left still needs) and by what the colours left can
    still weigh.
    At most prod(full[c] + 1) = 3888 changes for a nest of 22 eggs; cut, far fewer
    (docs/play-page.md gives the time on the board)."""

    def __init__(self, m, lo, hi, tol):
        n = len(m)
        self.m = m
        self.lo = lo
        self.hi = hi
        self.tol = tol
        # What the colours from i on can still add (most) or take away (least).
        self.most = [0] * (n + 1)
        self.least = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            self.most[i] = self.most[i + 1] + hi[i] * m[i]
            self.least[i] = self.least[i + 1] + lo[i] * m[i]
        self.heaviest = max(m)
        self.fewest = 1 << 30
        self.best = None  # type: list | None
        self.second = 1 << 30   # the fewest eggs of any other change that fits
        self.d = [0] * n     # the change being tried

    def run(self, i, left, eggs):
        # `left`: centigrams the change so far leaves unexplained; `eggs`: eggs changed so far.
        tol = self.tol
        far = left if left >= 0 else -left
        bound = self.fewest + _SPARE
        if eggs > bound:
            return
        # what is left needs this many more eggs at least, at the heaviest egg each
        if far >= tol and eggs + (far - tol) // self.heaviest + 1 > bound:
            return
        if i == len(self.d):
            if far < tol:
                if eggs < self.fewest:
                    self.second = self.fewest   # the change found before is one more that fits
                    self.fewest = eggs
                    self.best = list(self.d)
                elif eggs < self.second and self.best != self.d:
                    self.second = eggs
            return
        if left > self.most[i] + tol or left < self.least[i] - tol:
            return
        # Fewest eggs first (0, 1, -1, 2, -2, ...): the first fit bounds the rest of the search.
        lo = self.lo[i]
        hi = self.hi[i]
        m = self.m[i]
        d = self.d
        for a in range((hi if hi > -lo else -lo) + 1):
            if a <= hi:           # a eggs of this colour too many in the bowl
                d[i] = a
                self.run(i + 1, left - a * m, eggs + a)
            if a and -a >= lo:    # a eggs of it missing
                d[i] = -a
                self.run(i + 1, left + a * m, eggs + a)
        d[i] = 0


def nest_grams(nest, masses):
    """The weight of the eggs `nest` holds."""
    return sum([nest[c] * masses[c] for c in nest])


def asked(d, nest, full):
    """What the prompt asks for, as the flow's notes name eggs: {"back": {c: n}} for eggs the
    bowl lacks, {"out": {c: n}} for eggs too many in it (they stay out this round). When the
    weight names no change (d None): {"pour": True, "out": the eggs the game has out}: pour
    every egg back and take out exactly those."""
    back = {}
    out = {}
    if d is None:
        for c in full:
            if full[c] > nest[c]:
                out[c] = full[c] - nest[c]
        need = {"pour": True}  # type: dict
    else:
        for c in d:
            if d[c] < 0:
                back[c] = -d[c]
            else:
                out[c] = d[c]
        need = {}
    if back:
        need["back"] = back
    if out:
        need["out"] = out
    return need
