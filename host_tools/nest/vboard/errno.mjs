// The port hands the WASI errno numbers of Emscripten's file syscalls to OSError (ENOENT 44);
// MicroPython's own errno module, the ESP32 and mpremote use Linux's (ENOENT 2). board.mjs maps
// the syscalls' results through mapErrno before the VM sees them.
export const WASI = { EPERM: 63, ENOENT: 44, ESRCH: 71, EINTR: 27, EIO: 29, ENXIO: 60, E2BIG: 1, ENOEXEC: 45,
  EBADF: 8, ECHILD: 12, EAGAIN: 6, ENOMEM: 48, EACCES: 2, EFAULT: 21, EBUSY: 10, EEXIST: 20, EXDEV: 75,
  ENODEV: 43, ENOTDIR: 54, EISDIR: 31, EINVAL: 28, ENFILE: 41, EMFILE: 33, ENOTTY: 59, ETXTBSY: 74,
  EFBIG: 22, ENOSPC: 51, ESPIPE: 70, EROFS: 69, EMLINK: 34, EPIPE: 64, EDOM: 18, ERANGE: 68,
  ENAMETOOLONG: 37, ENOSYS: 52, ENOTEMPTY: 55, ELOOP: 32, EOPNOTSUPP: 138, ETIMEDOUT: 73 };
export const MP = { EPERM: 1, ENOENT: 2, ESRCH: 3, EINTR: 4, EIO: 5, ENXIO: 6, E2BIG: 7, ENOEXEC: 8, EBADF: 9,
  ECHILD: 10, EAGAIN: 11, ENOMEM: 12, EACCES: 13, EFAULT: 14, EBUSY: 16, EEXIST: 17, EXDEV: 18,
  ENODEV: 19, ENOTDIR: 20, EISDIR: 21, EINVAL: 22, ENFILE: 23, EMFILE: 24, ENOTTY: 25, ETXTBSY: 26,
  EFBIG: 27, ENOSPC: 28, ESPIPE: 29, EROFS: 30, EMLINK: 31, EPIPE: 32, EDOM: 33, ERANGE: 34,
  ENAMETOOLONG: 36, ENOSYS: 38, ENOTEMPTY: 39, ELOOP: 40, EOPNOTSUPP: 95, ETIMEDOUT: 110 };
const ERRNO = new Map(Object.keys(WASI).map((k) => [WASI[k], MP[k]]));
export const mapErrno = (e) => ERRNO.get(e) ?? e;

