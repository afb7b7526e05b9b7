"""The terminal's words for a game (`nest play`, `nest replay`) in the rulebook's three languages.

The same names as the play page (host_tools/nest/web/static/i18n.js): players are "Gulo 1".."Gulo 6"
(never "player 0"), colours by name, and the box's terms (EGG ALARM / EIERALARM / ALARME). The board
sends codes; only the host words them. `pick(None)` takes the language from the environment
(LC_ALL, LC_MESSAGES, LANG), English when it is none of ours.
"""

import json
import os

from gulo.vocab import NOTES


def plural(n, word):
    """`1 file`, `2 files`, `0 files`: English's rule for the tool's counted nouns."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"

LANGUAGES = ("en", "de", "fr")

_EN = {
    "colour": {"G": "green", "Y": "yellow", "R": "red", "B": "blue", "P": "purple", "J": "Gulo junior"},
    "an_egg": "a {c} egg",
    "gulo": "Gulo {n}",
    "head": "{variant} game, {players} players",
    "variant": {"standard": "standard", "fast": "fast"},
    "tile": "tile", "path": "path", "deck": "deck", "turned_over": "turned over", "nest": "nest",
    "won": "{g} has freed Gulo junior and wins!",
    "must_take": "{g} must take {egg}{source} (or the alarm goes off)",
    "for_deck": " for the deck tile",
    "last_tile": "{g} is on the last tile: turn over the deck (reveal)",
    "to_pick": "{g} to pick a colour: {options}",
    "reveal_tile": "reveal tile {k}", "choose": "choose {cs}", "or": " or ",
    "reveals": "tile {k} is {c}: {g} must take {egg}",
    "draws": "the deck gives {c}: {g} must take {egg}",
    "goes_for": "{g} goes for {c}",
    "junior": "Gulo junior! {g} wins",
    "jumps": "{g} takes {egg} and jumps to the next {c} tile: {frm} \u2192 {to}",
    "frees": ": Gulo junior is free, {g} wins!",
    "last_egg": " (the last {c} egg: every egg goes back into the nest and {g} plays again)",
    "alarm": "EGG ALARM ({why}): {g} goes back {frm} \u2192 {to}",
    "alarm_stays": "EGG ALARM ({why}): {g} stays {at}", "stays_start": "at the start",
    "stays_tile": "on tile {k}",
    "why": {"pole": "the pole fell", "egg": "another egg fell out", "called": "called by the players",
            "wrong egg": "wrong egg", "alarm": "alarm"},
    "start": "start", "at_tile": "tile {k}",
    "prompt": "{g}> ",
    "not_allowed": "not allowed: {e}",
    "undone": "the last verdict is undone: {g} takes {egg} again",
    "hello": "Gulo Gulo, seed {seed}; the log goes to {log}. Type help for the commands.",
    # The board's notes, one wording per kind of gulo.vocab.NOTES (`nest monitor`).
    "note": {"refused": "{what}: not now ({why})", "prompt": "the nest asks: {prompt}",
             "phase": "the nest: {phase}", "started": "new game: {players} players, {variant} variant",
             "menu": "menu: {players} players, {variant} variant", "nest": "in the bowl: {what}",
             "error": "the nest did not understand: {error}",
             "unchecked": "the nest is not calibrated: it takes the eggs in the bowl as the game's"},
    "menu_closed": "menu closed",
    "phases": {"settle": "waiting for the nest", "pick": "pick a colour", "attempt": "take the egg",
               "confirm": "judging the egg", "won": "the game is won", "menu": "menu open",
               "calibrate": "calibrating"},
    "prompts": {"put the pole back": "put the pole back",
                "put the eggs back into the nest": "put the eggs back into the nest",
                "pour every egg back, then press Reveal": "pour every egg back, then press Reveal"},
    "bowl": {"full": "the nest is full again", "out": "{egg} came out",
             "several": "{n} eggs came out together"},
}

_DE = {
    "colour": {"G": "grün", "Y": "gelb", "R": "rot", "B": "blau", "P": "lila", "J": "Klein-Gulo"},
    "an_egg": "ein {c}es Ei",
    "gulo": "Gulo {n}",
    "head": "{variant} Spiel, {players} Spieler",
    "variant": {"standard": "normales", "fast": "schnelles"},
    "tile": "Feld", "path": "Weg", "deck": "Stapel", "turned_over": "aufgedeckt", "nest": "Nest",
    "won": "{g} hat Klein-Gulo befreit und gewinnt!",
    "must_take": "{g} muss {egg} nehmen{source} (sonst gibt es EIERALARM)",
    "for_deck": " für das Stapelplättchen",
    "last_tile": "{g} steht auf dem letzten Plättchen: den Stapel aufdecken (reveal)",
    "to_pick": "{g} wählt eine Farbe: {options}",
    "reveal_tile": "Plättchen {k} aufdecken", "choose": "{cs} wählen", "or": " oder ",
    "reveals": "Plättchen {k} ist {c}: {g} muss {egg} nehmen",
    "draws": "der Stapel zeigt {c}: {g} muss {egg} nehmen",
    "goes_for": "{g} wählt {c}",
    "junior": "Klein-Gulo! {g} gewinnt",
    "jumps": "{g} nimmt {egg} und springt zum nächsten {c}en Plättchen: {frm} \u2192 {to}",
    "frees": ": Klein-Gulo ist frei, {g} gewinnt!",
    "last_egg": " (das letzte {c}e Ei: alle Eier zurück ins Nest, {g} ist noch einmal dran)",
    "alarm": "EIERALARM ({why}): {g} geht zurück {frm} \u2192 {to}",
    "alarm_stays": "EIERALARM ({why}): {g} bleibt {at}", "stays_start": "am Start",
    "stays_tile": "auf Feld {k}",
    "why": {"pole": "der Alarmstab ist gefallen", "egg": "ein anderes Ei ist herausgefallen",
            "called": "von den Spielern ausgerufen", "wrong egg": "falsches Ei", "alarm": "Alarm"},
    "start": "Start", "at_tile": "Plättchen {k}",
    "prompt": "{g}> ",
    "not_allowed": "nicht erlaubt: {e}",
    "undone": "das letzte Urteil ist zurückgenommen: {g} nimmt noch einmal {egg}",
    "hello": "Gulo Gulo, Startwert {seed}; das Protokoll geht nach {log}. help zeigt die Befehle.",
    "note": {"refused": "{what}: jetzt nicht ({why})", "prompt": "das Nest bittet: {prompt}",
             "phase": "das Nest: {phase}", "started": "neues Spiel: {players} Spieler, {variant} Spiel",
             "menu": "Menü: {players} Spieler, {variant} Spiel", "nest": "in der Schale: {what}",
             "error": "das Nest hat nicht verstanden: {error}",
             "unchecked": "das Nest ist nicht kalibriert: es hält die Eier in der Schale für die des Spiels"},
    "menu_closed": "Menü geschlossen",
    "phases": {"settle": "wartet auf das Nest", "pick": "eine Farbe wählen", "attempt": "das Ei nehmen",
               "confirm": "prüft das Ei", "won": "das Spiel ist gewonnen", "menu": "Menü offen",
               "calibrate": "kalibriert"},
    "prompts": {"put the pole back": "den Alarmstab zurückstecken",
                "put the eggs back into the nest": "die Eier zurück ins Nest legen",
                "pour every egg back, then press Reveal":
                    "alle Eier zurück ins Nest, dann Aufdecken drücken"},
    "bowl": {"full": "das Nest ist wieder voll", "out": "{egg} ist herausgekommen",
             "several": "{n} Eier sind zusammen herausgekommen"},
}

_FR = {
    "colour": {"G": "vert", "Y": "jaune", "R": "rouge", "B": "bleu", "P": "violet", "J": "petit Gulo"},
    "an_egg": "un œuf {c}",
    "gulo": "Gulo {n}",
    "head": "partie {variant}, {players} joueurs",
    "variant": {"standard": "normale", "fast": "rapide"},
    "tile": "bout", "path": "chemin", "deck": "pile", "turned_over": "retourné", "nest": "nid",
    "won": "{g} a libéré le petit Gulo et gagne !",
    "must_take": "{g} doit prendre {egg}{source} (sinon c'est l'ALARME)",
    "for_deck": " pour le bout de la pile",
    "last_tile": "{g} est sur le dernier bout : retourner la pile (reveal)",
    "to_pick": "{g} choisit une couleur : {options}",
    "reveal_tile": "retourner le bout {k}", "choose": "choisir {cs}", "or": " ou ",
    "reveals": "le bout {k} est {c} : {g} doit prendre {egg}",
    "draws": "la pile donne {c} : {g} doit prendre {egg}",
    "goes_for": "{g} choisit {c}",
    "junior": "Le petit Gulo ! {g} gagne",
    "jumps": "{g} prend {egg} et saute au prochain bout {c} : {frm} \u2192 {to}",
    "frees": " : le petit Gulo est libre, {g} gagne !",
    "last_egg": " (le dernier œuf {c} : tous les œufs retournent dans le nid et {g} rejoue)",
    "alarm": "ALARME ({why}) : {g} recule {frm} \u2192 {to}",
    "alarm_stays": "ALARME ({why}) : {g} reste {at}", "stays_start": "au départ",
    "stays_tile": "sur le bout {k}",
    "why": {"pole": "le bâtonnet est tombé", "egg": "un autre œuf est tombé",
            "called": "déclenchée par les joueurs", "wrong egg": "mauvais œuf", "alarm": "alarme"},
    "start": "départ", "at_tile": "bout {k}",
    "prompt": "{g}> ",
    "not_allowed": "pas permis : {e}",
    "undone": "le dernier verdict est annulé : {g} reprend {egg}",
    "hello": "Gulo Gulo, graine {seed} ; le journal va dans {log}. Tapez help pour les commandes.",
    "note": {"refused": "{what} : pas maintenant ({why})", "prompt": "le nid demande : {prompt}",
             "phase": "le nid : {phase}", "started": "nouvelle partie : {players} joueurs, partie {variant}",
             "menu": "menu : {players} joueurs, partie {variant}", "nest": "dans le nid : {what}",
             "error": "le nid n'a pas compris : {error}",
             "unchecked": "le nid n'est pas étalonné : il prend les œufs du nid pour ceux de la partie"},
    "menu_closed": "menu fermé",
    "phases": {"settle": "attend le nid", "pick": "choisir une couleur", "attempt": "prendre l'œuf",
               "confirm": "vérifie l'œuf", "won": "la partie est gagnée", "menu": "menu ouvert",
               "calibrate": "étalonnage"},
    "prompts": {"put the pole back": "remettre le bâtonnet",
                "put the eggs back into the nest": "remettre les œufs dans le nid",
                "pour every egg back, then press Reveal":
                    "remettre tous les œufs dans le nid, puis appuyer sur Retourner"},
    "bowl": {"full": "le nid est de nouveau plein", "out": "{egg} est sorti",
             "several": "{n} œufs sont sortis ensemble"},
}

_ALL = {"en": _EN, "de": _DE, "fr": _FR}


def note_kind(note):
    """A board note's kind: the first of gulo.vocab.NOTES it has as a key, else None."""
    return next((k for k in NOTES if k in note), None)


def pick(lang=None):
    """The language code to use: `lang` if given, else the environment's, else English."""
    if lang:
        return lang
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        code = os.environ.get(var, "")[:2].lower()
        if code in _ALL:
            return code
    return "en"


class Words:
    """The texts of one language, with the grammar the formats above need."""

    def __init__(self, lang="en"):
        if lang not in _ALL:
            raise ValueError(f"unknown language {lang!r} (one of {', '.join(LANGUAGES)})")
        self.lang = lang
        self.t = _ALL[lang]

    def __getitem__(self, key):
        return self.t[key]

    def colour(self, c):
        return self.t["colour"][c]

    def gulo(self, p):
        """Player index p (0-based, as the engine counts) as the page and the box say it."""
        return self.t["gulo"].format(n=p + 1)

    def egg(self, c):
        if self.lang == "de" and c == "P":
            return "ein lila Ei"  # lila is not declined
        return self.t["an_egg"].format(c=self.colour(c))

    def colour_adj(self, c):
        # German declines the colour before "Plättchen"/"Ei" (roten, rote); lila stays as it is.
        return "lila" if self.lang == "de" and c == "P" else self.colour(c)

    def where(self, k):
        return self.t["start"] if k == 0 else self.t["at_tile"].format(k=k)

    def note(self, note):
        """One line for a note of the board's turn flow ({"ev": "note", "note": ...}), worded by its
        kind (gulo.vocab.NOTES: the first one it has as a key); None for a kind the firmware does
        not send."""
        kind = note_kind(note)
        if kind is None:
            return None
        v, t = note[kind], self.t
        if kind == "refused":
            what = v if isinstance(v, str) else (v.get("do") if isinstance(v, dict) else json.dumps(v))
            why = note.get("why") or t["phases"].get(note.get("phase"), "")
            return t["note"][kind].format(what=what, why=why)
        if kind == "prompt":
            return t["note"][kind].format(prompt=t["prompts"].get(v, v))
        if kind == "phase":
            return t["note"][kind].format(phase=t["phases"].get(v, v))
        if kind in ("started", "menu"):
            if not isinstance(v, dict):
                return t["menu_closed"]
            return t["note"][kind].format(players=v.get("players"),
                                          variant=t["variant"].get(v.get("variant"), v.get("variant")))
        if kind == "nest":
            if v.get("full"):
                what = t["bowl"]["full"]
            elif v.get("out") == 1 and v.get("colour") in t["colour"]:
                what = t["bowl"]["out"].format(egg=self.egg(v["colour"]))
            else:
                what = t["bowl"]["several"].format(n=v.get("out"))
            return t["note"][kind].format(what=what)
        if kind == "unchecked":
            return t["note"][kind]
        return t["note"][kind].format(error=v)

    def fmt(self, key, **kw):
        text = self.t[key].format(**kw)
        return text.replace("lilaen ", "lila ").replace("lilae ", "lila ")
