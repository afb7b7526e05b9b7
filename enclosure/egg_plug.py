"""The plug that closes a weighted egg's ballast bore (egg.py): a press-fit disc, glued."""
from . import egg


def build(index=0):
    return egg.build_plug(index)


def expected_volume():
    return egg.plug_volume()
