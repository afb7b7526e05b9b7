# Copied by lab/build_frozen_unix.sh to the unix port's boards/manifest.py in build/, where
# firmware/manifest.py's first line, include("$(PORT_DIR)/boards/manifest.py"), looks for the
# port's own manifest (the ESP32 port has one; the unix port does not). On the ESP32 that brings
# asyncio, neopixel, _boot.py and micropython-lib packages; of those the firmware on the unix port
# needs asyncio only (machine and neopixel are the virtual board's shims), which the unix port's
# standard variant freezes the same way (ports/unix/variants/standard/manifest.py, micropython at
# 1c3c201149). Its micropython-lib packages (mip, ssl) are left out: no submodule here, and the
# firmware imports neither.
include("$(MPY_DIR)/extmod/asyncio")
