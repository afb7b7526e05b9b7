"""The test kit: a board running the firmware (virtual board, console, harness), the MicroPython
VM runner and the fuzzers, shared by the tests and the lab's drills and benches. Not shipped."""
