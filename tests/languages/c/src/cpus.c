#include "tax.h"

/* How many CPUs this process may use, by the platform's own call. */
unsigned int available_cpus(void) {
  long count = -1;
#ifdef __linux__
  count = linux_cpus();
#elif defined(__APPLE__)
  int found;
  size_t i;
  static const char *names[] = {
    "hw.activecpu",
    "hw.ncpu"
  };

  for (i = 0; i < 2; i++) {
    if (read_cpus(names[i], &found) == 0 && found > 0) {
      count = found;
      break;
    }
  }
#elif defined(__FreeBSD__)
  int found;
  static const int names[][2] = {
# ifdef HW_NCPUONLINE
    { 6, 25 },
# endif
    { 6, 3 }
  };
  count = bsd_cpus(names, &found);
  return (unsigned int) count;
#endif
  return count > 0 ? (unsigned int) count : 1;
}

#ifdef _WIN32
int cpu_limit(void) { return 64; }
#else
int cpu_limit(void) { return 1024; }
#endif
