"""Read glitches as a real HX711 recording shows them, added to any model's samples.

The five nest models draw their glitches (a sample far off the rest, from a disturbed read) from
assumed rates: 1/20,000-1/3,000 a sample (lab.physmodel), 0.02-0.2 % (lab.liftmodel),
0-0.1 % (lab.gripmodel), 0-0.03 % (lab.tablemodel). The one public recording of a real HX711
found with enough rest in it to count them shows more, and smaller ones:

  Cerda-CruzStanlie/LoadCellProject on GitHub: readings.csv at commit
  b3c75902cf2f5d960bb0ea5a476b82c66d4ba1ad (removed from the repository later) and
  CalibrationReadings.csv at ad2f8f8546a88bed11da1c90a7511989a2657d15. Static loads of 0-2752 g on a
  load cell through an HX711, raw counts, one column per load, no timestamps (rate unknown).
  Its columns' medians against their loads give about 200 counts per gram (209 and 192 in the
  two files). No licence is stated there: the recording is not copied into this project, only
  the figures below, measured from it.

Measured: 3,209 samples in 14 columns; a glitch is a sample more than 8 robust sd (1.4826 x the
median absolute deviation, 50-150 counts) from its column's median. 24 glitches, 23 of one
sample and one of two in a row (1912 then 786 counts), 24 of 25 samples high: GLITCH_COUNTS
below, 2.7-10.2 g at 200 counts/g. A glitch starts on 24 / 3209 = 0.75 % of samples (MEASURED_P).
The command that measured it is in docs/weigher.md, "Read glitches from a real recording".

The recording's own cause is unknown (its read code is not in the repository); the nest's driver
reads with interrupts off (gulo.hx711), which takes away one known cause, a read clocked late.
So these are a stress the nest may or may not meet, at its measured size and rate."""

import random

# each glitch's run of samples, in counts off its column's median, as measured (see above)
GLITCH_COUNTS = ((-633,), (545,), (570,), (578,), (711,), (789,), (860,), (936,), (983,), (1021,),
                 (1042,), (1050,), (1163,), (1170,), (1199,), (1332,), (1346,), (1368,), (1551,),
                 (1614,), (1635,), (1792,), (1912, 786), (2036,))
COUNTS_PER_G = 200
GLITCH_G = tuple(tuple(c / COUNTS_PER_G for c in run) for run in GLITCH_COUNTS)
MEASURED_P = 24 / 3209   # a glitch starts on this share of samples


def add(samples, p=MEASURED_P, seed=0):
    """`samples` [(t_ms, grams, pole), ...] with glitches added: each sample starts one with
    probability p, drawn from the measured glitches (its run of samples as it was). A new list."""
    if not 0 <= p <= 0.2:
        raise ValueError(f"glitch share {p!r}: 0 to 0.2 of samples")
    rng = random.Random(seed)
    out = list(samples)
    i = 0
    while i < len(out):
        if rng.random() < p:
            run = rng.choice(GLITCH_G)
            for k, dg in enumerate(run):
                if i + k < len(out):
                    t, g, pole = out[i + k]
                    out[i + k] = (t, g + dg, pole)
            i += len(run)
        else:
            i += 1
    return out
