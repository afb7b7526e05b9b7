# The control build of lab/build_frozen_unix.sh: the same unix binary with only what the port
# itself freezes (port_manifest.py: asyncio) and no firmware, so that the .mpy deploy and the
# frozen firmware are compared on binaries built alike from one source tree.
include("$(PORT_DIR)/boards/manifest.py")
