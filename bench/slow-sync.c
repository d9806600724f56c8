/*
 * A slower disk for the benches (YSS_BENCH_SYNC_US, bench/processes.ts): loaded into the
 * sidecar's process with LD_PRELOAD, it makes each fsync and fdatasync wait SLOW_SYNC_US
 * microseconds before the real one, as a sync to network block storage or a busy disk takes
 * milliseconds where this machine's takes a tenth of one. Built with the system's C compiler.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void slow(void) {
  const char *v = getenv("SLOW_SYNC_US");
  long us = v ? atol(v) : 0;
  if (us <= 0) return;
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  slow();
  return real(fd);
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  slow();
  return real(fd);
}
