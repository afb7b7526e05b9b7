"""lab/alarm_profile.py's reading of the probe's events (no board): the stages of one alarm from
its IRQ, what else ran, and the console lines counted before the siren."""



from lab import alarm_profile as ap  # noqa: E402

POLE, SAMPLER = ap.TASKS.index("pole"), ap.TASKS.index("sampler")


def alarm_events(emit_first=False):
    """One pole alarm as the probe records it (code, arg, t_us): the IRQ at 1 ms, the pole task
    polls at once, a 3 ms sampler step, the calm confirmed at 21.2 ms, then the siren and the
    LEDs (and a console line before the siren if `emit_first`)."""
    ev = [(ap.IRQ_REED, 0, 1000), (ap.WORLD_MS, 5000, 1001),
          (ap.STEP_IN, POLE, 1100), (ap.POLL, 10, 1150), (ap.STEP_OUT, POLE, 1160),
          (ap.STEP_IN, SAMPLER, 1200), (ap.STEP_OUT, SAMPLER, 4200),
          (ap.STEP_IN, POLE, 21150), (ap.POLL, 12, 21200), (ap.FLOW_IN, 1, 21210), (ap.FLOW_OUT, 0, 21300),
          (ap.HANDLE_IN, 2, 21310)]
    if emit_first:
        ev += [(ap.EMIT_IN, 0, 21320), (ap.EMIT_OUT, 0, 21400)]
    ev += [(ap.PWM_FREQ, ap.ALARM_HZ, 21500), (ap.WORLD_MS, 5021, 21501), (ap.PWM_DUTY, 16350, 21600),
           (ap.RENDER_IN, 0, 21700), (ap.RENDER_OUT, 0, 22700), (ap.SHOW_IN, 0, 22710),
           (ap.SHOW_OUT, 0, 24000), (ap.EMIT_IN, 0, 24100), (ap.EMIT_OUT, 0, 24300),
           (ap.HANDLE_OUT, 0, 24400), (ap.STEP_OUT, POLE, 24410)]
    return ev


def test_the_stages_of_an_alarm_are_read_from_its_irq():
    [(kind, win)] = ap.windows(alarm_events())
    r = ap.analyse(win, kind)
    assert kind == ap.IRQ_REED
    assert (r["task wakes"], r["change confirmed"], r["handle called"]) == (0.1, 20.2, 20.31)
    assert (r["siren PWM"], r["LEDs written"]) == (20.6, 23.0)
    assert r["world: IRQ -> siren (world ms)"] == 21
    assert r["ran: sampler"] == 3.0 and r["render ms"] == 1.0
    assert r["console lines before the siren"] == 0


def test_a_console_line_before_the_siren_is_counted():
    # the check the profile makes of the order: it must see a report that comes first
    [(kind, win)] = ap.windows(alarm_events(emit_first=True))
    assert ap.analyse(win, kind)["console lines before the siren"] == 1


def test_a_window_without_the_siren_is_no_alarm():
    ev = [e for e in alarm_events() if e[0] not in (ap.PWM_FREQ, ap.PWM_DUTY)]
    [(kind, win)] = ap.windows(ev)
    assert ap.analyse(win, kind) is None
