# The console refuses what json.loads would quietly reinterpret (issue 17, hole 8): a key given
# twice ({"cmd": "status", "cmd": "new"} started a new game: the last one wins).

from test_console import refused

from gulo.console import parse, shape


def test_a_key_given_twice_is_refused():
    for line in ('{"cmd":"status","cmd":"new"}', '{"cmd": "new", "players": 2, "players": 3}',
                 '{"cmd": "status", "id": 1, "id": 2}', '{"cmd": "status", "c\\u006dd": "new"}',
                 b'{"cmd":"status","cmd":"new"}'):
        assert refused(line).startswith("a field given twice"), line


def test_lines_with_each_key_once_still_parse():
    assert parse('{"cmd": "status"}') == ("status", {}, None)
    assert parse('{"cmd": "new", "players": 3, "id": "a,b"}') == ("new", {"players": 3}, "a,b")
    assert parse('{"cmd": "set", "key": "volume", "value": 5, "id": "{\\"x\\": [1, 2]}"}')[1] == {
        "key": "volume", "value": 5}
    assert parse(' { "cmd" : "status" } ')[0] == "status"


def test_shape_counts_what_is_written():
    assert shape("{}") == (0, 1)
    assert shape(" { } ") == (0, 1)
    assert shape('{"a": 1}') == (1, 1)
    assert shape('{"a": [1, 2, {"b": 3, "c": 4}], "d": "x,y"}') == (2, 3)
    assert shape('{"a": "\\\\", "b": "\\""}') == (2, 1)
    assert shape('{"a": 1, "a": 2}') == (2, 1)
    assert shape('{"a": "[[[{{{"}')[1] == 1
    assert shape("[" * 50)[1] == 50


def test_a_number_that_is_not_finite_is_refused():
    # CPython's json takes 1e99999 (inf), NaN and Infinity; the console refuses them before any
    # field's own check (nest replay holds a game log to the same rule: gulo.console.load_object).
    for line in ('{"cmd": "status", "id": 1e99999}', '{"cmd": "calibrate", "grams": 1e99999}',
                 '{"cmd": "set", "key": "volume", "value": [1, -1e99999]}'):
        assert refused(line) is not None, line
