"""Power budget of the nest on a 500 mA USB port, and the LED brightness cap that keeps it there.

The cap itself lives in the firmware's board file (gulo.board.LED_BRIGHTNESS_CAP), the one place
the firmware's LED view reads it from; this module checks that it keeps the nest in budget.

Figures are conservative datasheet/typical values, stated so anyone can redo the sum:
- WS2812B: ~20 mA per colour channel at value 255 (60 mA white), linear in the PWM value, plus
  ~1 mA quiescent per pixel even when dark (Worldsemi WS2812B datasheet; widely measured 0.6-1 mA).
- ESP32-WROOM-32 running MicroPython with Wi-Fi OFF: ~50-70 mA at 160-240 MHz; we book 80 mA.
  Wi-Fi ON adds bursts up to ~240 mA: then this budget does NOT hold (see WIFI_EXTRA_MA).
- DevKitC's own regulator/USB bridge/power LED: ~15 mA. HX711 + load cell bridge: ~1.5 + 4 mA
  (1 kOhm bridge at 3.3 V is 3.3 mA). Passive piezo via an NPN at 5 V: ~30 mA while it sounds.
"""
from gulo import board

USB_BUDGET_MA = 500          # USB 2.0 port after enumeration; also a typical "500 mA" wall plug
LED_CHANNEL_MA = 20.0        # per channel at 255
LED_IDLE_MA = 1.0            # per pixel, always
LED_BRIGHTNESS_CAP = board.LED_BRIGHTNESS_CAP  # max value of any colour channel (0-255) sent
ESP32_MA = 80.0
DEVKIT_OVERHEAD_MA = 15.0
HX711_MA = 1.5 + 3.3         # chip + 1 kOhm bridge excitation
BUZZER_MA = 30.0
WIFI_EXTRA_MA = 160.0        # extra peak if the firmware ever turns Wi-Fi on


def led_ma(cap=LED_BRIGHTNESS_CAP, pixels=board.LED_COUNT, channels_on=3):
    """Worst-case LED current: every pixel with `channels_on` channels at the cap (3 = white)."""
    return pixels * (channels_on * LED_CHANNEL_MA * cap / 255.0 + LED_IDLE_MA)


def budget(cap=LED_BRIGHTNESS_CAP, wifi=False):
    """(rows, total mA): the worst case, every pixel white at the cap with the buzzer sounding."""
    rows = [
        (f"{board.LED_COUNT} x WS2812B, white at {cap}/255", led_ma(cap)),
        ("ESP32-WROOM-32 (MicroPython, Wi-Fi off)", ESP32_MA),
        ("DevKitC regulator, USB-UART bridge, power LED", DEVKIT_OVERHEAD_MA),
        ("HX711 + load cell bridge", HX711_MA),
        ("piezo buzzer driver", BUZZER_MA),
    ]
    if wifi:
        rows.append(("Wi-Fi transmit bursts", WIFI_EXTRA_MA))
    return rows, sum(ma for _what, ma in rows)


def max_cap(wifi=False):
    """The highest cap whose worst case still fits USB_BUDGET_MA."""
    cap = 255
    while cap > 0 and budget(cap, wifi)[1] > USB_BUDGET_MA:
        cap -= 1
    return cap


def table(cap=LED_BRIGHTNESS_CAP):
    rows, total = budget(cap)
    lines = ["| consumer | worst case (mA) |", "|---|---:|"]
    lines += [f"| {what} | {ma:.0f} |" for what, ma in rows]
    lines.append(f"| **total** | **{total:.0f}** of {USB_BUDGET_MA} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
    print(f"max cap: {max_cap()} (Wi-Fi off), {max_cap(wifi=True)} (Wi-Fi on)")
