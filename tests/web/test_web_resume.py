"""The play page after a restart with the bowl changed while `nest web` was off (issue 19, point 2):
the firmware weighs the bowl against the game it resumed, its prompt names the egg that differs
(`status.need`), the page says the same from the table it sees, and taking that egg out lets the
game go on. Real headless Chromium against `nest web`,
whose virtual nest comes calibrated (nest.vboard.bench_calibration)."""

import json

import pytest
from test_web_family import WAIT_MS, app, browser, first_egg_taken, open_page, server, wait_app  # noqa: F401

# browser, server: the family page's fixtures, imported so this module gets a server of its own
pytestmark = [pytest.mark.browser, pytest.mark.board, pytest.mark.timeout(300)]


def test_an_egg_put_back_while_off_is_named_on_the_page_and_taking_it_out_goes_on(browser, server):  # noqa: F811
    page = open_page(browser, server.url)
    try:
        taken = first_egg_taken(page, seed=5)
        server.stop()
        # While the nest is off, a child puts Gulo 1's egg back into the bowl.
        world_file = server.flash.with_name(server.flash.name + ".world.json")
        world = json.loads(world_file.read_text())
        world["nest"][taken] += 1
        world_file.write_text(json.dumps(world))
        server.start()
        page.wait_for_function("document.getElementById('conn').dataset.state === 'ok'", timeout=60000)
        wait_app(page, "a.prompt !== '' && a.nest === '22'")
        assert page.evaluate("status.need") == {"out": {taken: 1}}
        prompt = "document.getElementById('prompt').textContent"
        page.wait_for_function(f"{prompt}.includes('stays out of the nest')", timeout=WAIT_MS)
        page.click(f"#bowl .egg.c-{taken}:not([hidden])")
        wait_app(page, "a.turn === '1' && a.phase === 'pick' && a.nest === '21'")
        assert page.errors == []
    finally:
        page.context.close()
