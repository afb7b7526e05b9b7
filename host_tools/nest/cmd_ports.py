"""`nest ports`: the serial ports, with USB identity and bridge chip, ESP32-like ones marked."""

from nest.ports import list_ports


def add_parser(sub):
    return sub.add_parser("ports", help="list serial ports (USB VID:PID, serial number, bridge chip)")


def run(args):
    ports = list_ports()
    if not ports:
        print("no serial ports")
        return 0
    print(f"  {'PORT':<16} {'VID:PID':<10} {'SERIAL':<18} {'BRIDGE':<28} DESCRIPTION")
    for p in ports:
        print(("* " if p.esp32_like else "  ") + p.line())
    boards = sum(p.esp32_like for p in ports)
    print(f"{boards} ESP32-like port(s) (*)" + ("; commands pick it by themselves" if boards == 1 else ""))
    return 0
