# The HX711 driver against a pin-level fake of the chip.

from gulo.hx711 import (
    HX711,
    POWER_UP_MS,
    SETTLE_READS,
    SILENCE_MIN_MS,
    SILENCE_PERIODS,
    SLOWEST_PERIOD_MS,
    HX711Fault,
    Scale,
    Silence,
)

from fakes import FakeHX711, FinishingClock


def chips(*conversion_lists):
    clock = FinishingClock()
    made = [FakeHX711(clock, c) for c in conversion_lists]
    clock.chips = made
    return clock, made


def driver(clock, made):
    # All cells share the first chip's SCK line: a real board wires one clock to every HX711.
    shared = made[0].sck
    for chip in made[1:]:
        previous = shared.on_write
        shared.on_write = (lambda prev, c: lambda level: (prev(level), c._clock_edge(level)))(previous, chip)
    return HX711(shared, [c.dout for c in made], clock)


def test_reads_signed_24_bit_values_after_discarding_the_settling_reads():
    values = [999] * SETTLE_READS + [123456, -2, -8000000, 0]
    clock, made = chips(values)
    hx = driver(clock, made)
    assert [hx.read(), hx.read(), hx.read(), hx.read()] == [123456, -2, -8000000, 0]
    # Channel A, gain 128: exactly one extra pulse after every 24 bits.
    assert set(made[0].gain_pulses) == {1}


def test_several_cells_are_summed():
    a = [0] * SETTLE_READS + [1000, 2000]
    b = [0] * SETTLE_READS + [-300, 50]
    clock, made = chips(a, b)
    hx = driver(clock, made)
    assert hx.read() == 700 and hx.read() == 2050


def test_an_unplugged_hx711_is_a_fault_within_the_bound():
    clock, made = chips([5] * 20)
    made[0].plugged = False
    hx = driver(clock, made)
    start = clock.now
    try:
        hx.read(timeout_ms=100)
    except HX711Fault as e:
        assert e.cell == 0 and "no answer" in str(e)
    else:
        raise AssertionError("no fault")
    assert 100 <= clock.now - start <= 110


def test_a_saturated_reading_is_a_fault():
    clock, made = chips([0] * SETTLE_READS + [0x7FFFFF])
    hx = driver(clock, made)
    try:
        hx.read()
    except HX711Fault as e:
        assert "saturated" in e.reason
    else:
        raise AssertionError("no fault")


def test_power_down_holds_the_clock_high():
    clock, made = chips([0] * 10)
    hx = driver(clock, made)
    hx.power_down()
    assert made[0].sck.level == 1
    hx.power_up()
    assert made[0].sck.level == 0


def test_scale_converts_both_ways():
    s = Scale(counts_per_g=400.0, offset=-1000)
    assert s.grams(s.counts(250.0)) == 250.0
    assert s.grams(-1000) == 0


def test_poll_never_waits_and_skips_the_settling_reads():
    clock, made = chips([7] * SETTLE_READS + [42])
    hx = driver(clock, made)
    assert hx.poll() is None            # nothing converted yet: returns at once
    got = []
    for _ in range(200):
        clock.sleep_ms(1)
        clock.ticks_ms()                # the chip notices the read is over
        v = hx.poll()
        if v is not None:
            got.append(v)
    assert got == [42]


def sampler_faults(conversions, period_ms, plugged=True, until_ms=1000, unplug_at=None, periods=None,
                   silence_cls=Silence):
    """The app's sampler loop, step by step (1 ms): poll the driver, tell Silence what was
    heard; returns the times at which a 'no answer' fault would be shown."""
    clock, made = chips(conversions)
    made[0].period_ms = period_ms
    made[0].plugged = plugged
    hx = driver(clock, made)
    silence = silence_cls(clock.now)
    faults = []
    got = []
    while clock.now < until_ms:
        if unplug_at is not None and clock.now >= unplug_at:
            made[0].plugged = False
        if periods is not None:
            made[0].period_ms = periods(clock.now)
        now = clock.ticks_ms()  # (also ends the fake chip's previous read)
        if hx.ready():
            silence.heard(now)
        raw = hx.poll()
        if raw is not None:
            got.append(raw)
        elif silence.over(now):
            faults.append(now)
        clock.sleep_ms(1)
    return faults, got


def test_a_healthy_hx711_is_no_fault_while_its_first_reads_are_discarded():
    # 10 SPS: the four discarded reads alone last 400 ms, four times READY_TIMEOUT_MS.
    faults, got = sampler_faults([7] * SETTLE_READS + [42] * 20, period_ms=100)
    assert faults == [] and got[:3] == [42, 42, 42]


def test_a_silent_hx711_is_a_fault_within_a_second_of_boot():
    faults, got = sampler_faults([7] * 20, period_ms=12, plugged=False)
    assert got == [] and faults and faults[0] <= POWER_UP_MS + SILENCE_PERIODS * SLOWEST_PERIOD_MS + 1 < 1000


# The "10 SPS" setting (most modules sold) runs at 10-12 conversions/s on the internal
# oscillator, and a slow chip a little under 10: a fixed 100 ms silence fired between samples.
def test_10_sps_silence_is_no_fault_at_any_of_its_rates():
    for period in (83, 100, 110):
        faults, got = sampler_faults([7] * SETTLE_READS + [42] * 40, period_ms=period, until_ms=3000)
        assert faults == [] and len(got) > 15, (period, faults)


def test_an_hx711_unplugged_at_10_sps_is_still_a_fault_within_a_second():
    # the planted fault: the same 10 SPS chip, its DOUT wire cut at 1.5 s
    faults, got = sampler_faults([7] * SETTLE_READS + [42] * 40, period_ms=100, until_ms=3000, unplug_at=1500)
    assert faults and 1500 < faults[0] <= 1500 + SILENCE_PERIODS * 110 + 1 < 2500, faults


def test_an_hx711_unplugged_at_80_sps_is_a_fault_within_the_minimum_silence():
    faults, got = sampler_faults([7] * SETTLE_READS + [42] * 200, period_ms=11, until_ms=2500, unplug_at=1500)
    assert faults and 1500 < faults[0] <= 1500 + SILENCE_MIN_MS + 2, faults


def test_the_silence_follows_a_rate_that_changes_mid_session():
    # 80 SPS, then the RATE pin to ground: 10 SPS. The limit grows with the measured period.
    faults, got = sampler_faults([7] * SETTLE_READS + [42] * 300, period_ms=11, until_ms=4000,
                                 periods=lambda t: 11 if t < 1500 else 100)
    assert faults == [] and len(got) > 100, faults


def test_silence_measures_the_rate_from_what_it_hears():
    s = Silence(0)
    assert s.rate_sps() == 1000 // SLOWEST_PERIOD_MS
    for k in range(40):
        s.heard(400 + 11 * k)
    assert 88 <= s.rate_sps() <= 92 and s.limit_ms() == SILENCE_MIN_MS
    for k in range(40):
        s.heard(1000 + 90 * k)
    assert 10 <= s.rate_sps() <= 12 and s.limit_ms() == 4 * s.period_ms


class _Fixed100(Silence):
    """The old rule, planted: 100 ms of silence is a fault whatever the rate."""

    def limit_ms(self):
        return 100


def test_the_old_fixed_silence_faults_at_10_sps_so_the_check_can_fail():
    faults, got = sampler_faults([7] * SETTLE_READS + [42] * 40, period_ms=110, until_ms=3000,
                                 silence_cls=_Fixed100)
    assert faults, "a 110 ms gap must trip a fixed 100 ms limit"


def test_left_ms_is_the_wait_until_the_silence_is_over():
    # gulo.app's hx_silence sleeps left_ms(), then wakes the sampler: over() must be true then,
    # never a millisecond later (the fault would wait a whole limit more), nor sooner.
    s = Silence(0)
    assert s.left_ms(0) == POWER_UP_MS + s.limit_ms() + 1   # the power-up settling is no silence
    s.heard(1000)
    for t in range(1000, 1000 + s.limit_ms() + 3):
        left = s.left_ms(t)
        assert (left == 0) == (t - 1000 > s.limit_ms()), (t, left)
        if left:
            assert not Silence.over(_copy(s), t + left - 1) and Silence.over(_copy(s), t + left), t


def _copy(s):
    c = Silence(0)
    c.since, c.last, c.period_ms = s.since, s.last, s.period_ms
    return c
