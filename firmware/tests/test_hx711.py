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
    """The app's sampler loop: look at the driver, tell Silence what was heard, sleep as long as
    Silence.look_in_ms says; returns the times at which a 'no answer' fault would be shown and
    the conversions read."""
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
        clock.ticks_ms()        # the chip notices the read is over: its next conversion starts
        if raw is not None:
            got.append(raw)
        elif silence.over(now):
            faults.append(now)
        clock.sleep_ms(silence.look_in_ms(now))
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
    # The sampler, a period late, sleeps left_ms() (Silence.look_in_ms): over() must be true
    # then, never a millisecond later (the fault would wait a whole limit more), nor sooner.
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


# ---- when the sampler looks: every conversion read, at both rates, whatever the sleeps ----------
# A free-running chip (a real HX711 converts on, whether read or not: a conversion not read before
# the next one lands is lost) against the sampler's looks (Silence.look_in_ms). The ESP32 ends a
# sleep at the first FreeRTOS tick after it (every 10 ms), as the virtual board does; the unix
# port ends it on time. Times in 0.1 ms; each read and the weigher's work after it take `work_x10`.

def lost_and_looks(period_x10, ticked, silence_cls=Silence, seconds=10, work_x10=20):
    """(conversions lost, looks a second) over `seconds` from the power-up."""
    silence = silence_cls(0)
    t = 0
    read_at = -1          # the index of the last conversion read
    lost = looks = 0
    first = POWER_UP_MS * 10 // period_x10 + 1   # the first conversion after the power-up
    while t < seconds * 10000:
        looks += 1
        ready = t // period_x10        # the newest conversion that has landed
        if ready >= first and ready > read_at:
            if read_at >= 0:
                lost += ready - read_at - 1
            read_at = ready
            silence.heard(t // 10)
            t += work_x10
        t += 10 * silence.look_in_ms(t // 10)
        if ticked:
            t = -(-t // 100) * 100
    return lost, looks // seconds


def test_every_conversion_is_read_at_both_rates_whether_sleeps_end_on_time_or_at_a_tick():
    # 80 SPS: 86-94/s measured; 10 SPS: 10-12/s, and a slow chip a little under 10 (above)
    for period_x10 in (106, 111, 116, 830, 900, 1000, 1100):
        for ticked in (False, True):
            lost, per_s = lost_and_looks(period_x10, ticked)
            assert lost == 0, (period_x10, ticked, lost)
            # looks, not a poll every millisecond (1,000 a second; the ESP32's tick: 100)
            assert per_s <= (110 if ticked else 500), (period_x10, ticked, per_s)


class _UntilDue(Silence):
    """Planted: sleep until half-way to when the next conversion is due at the measured period.
    Where sleeps end on time it reads them all; on the ESP32 it may wake a tick too late once,
    find the conversion after the one it missed, measure twice the period and stay there."""

    def look_in_ms(self, now_ms):
        left = self.period_ms - (now_ms - self.heard_at)
        return left >> 1 if left > 1 else 1


def test_planted_a_wait_from_the_measured_period_loses_half_the_conversions_at_the_tick():
    assert lost_and_looks(111, False, _UntilDue)[0] < 20     # the power-up's, while it measures
    assert lost_and_looks(111, True, _UntilDue)[0] > 300
