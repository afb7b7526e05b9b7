# `vfs` as a stock ESP32_GENERIC has it: without rom_ioctl. MICROPY_VFS_ROM defaults to 0
# (py/mpconfig.h) and nothing under ports/esp32 turns it on, so extmod/modvfs.c leaves rom_ioctl
# out; the WebAssembly port has it, and `mpremote romfs query` then divides by a block size of 0.
from vfs import *  # noqa: F403  (every public name of the built-in module)

del rom_ioctl  # noqa: F821
