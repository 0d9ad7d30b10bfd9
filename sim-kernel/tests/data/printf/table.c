/* Writes printf-table.tsv: single-conversion cases (random flags, widths,
 * precisions, length modifiers, values) with what the host C library
 * (glibc) prints for each; sim-kernel's formatter must print the same
 * (tests/it/printf.rs). Columns: format, argument kind (i32 i64 f64 str),
 * the argument (hex bits; the string itself for str), the output.
 *   gcc -O0 -o table table.c && ./table > printf-table.tsv
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int pick(int n) { return (int)(next() % (uint64_t)n); }

static const double doubles[] = {0.0, -0.0, 0.5, 1.5, 2.5, 9.5, 0.05, 0.125, 1e-310, 4.9e-324, 1e300,
                                 123.456, -987654.321, 1e-5, 99999.95, 0.000123456, 1e21, 1.0 / 3.0,
                                 6.02214076e23, -1.0, 1e16, 2.2250738585072014e-308};
static const char *strings[] = {"", "a", "hello", "with space", "0123456789abcdef"};

int main(void) {
  char fmt[64], out[512];
  for (int n = 0; n < 3000; n++) {
    int kind = pick(4);
    char conv;
    const char *lenmod = "";
    const char *flagset = "-+ #0";
    if (kind == 0) {
      const char *c = "diuxXoc";
      conv = c[pick(7)];
      const char *l[] = {"", "h", "hh"};
      if (conv != 'c')
        lenmod = l[pick(3)];
    } else if (kind == 1) {
      const char *c = "diuxXo";
      conv = c[pick(6)];
      const char *l[] = {"l", "ll", "z", "j"};
      lenmod = l[pick(4)];
    } else if (kind == 2) {
      const char *c = "fFeEgGaA";
      conv = c[pick(8)];
    } else {
      conv = "sp"[pick(2)];
    }
    if (conv == 'c' || conv == 's' || conv == 'p')
      flagset = "-";
    char *p = fmt;
    *p++ = '%';
    for (const char *f = flagset; *f; f++)
      if (pick(4) == 0)
        *p++ = *f;
    if (pick(2))
      p += sprintf(p, "%d", pick(25));
    if (pick(2) && conv != 'c' && conv != 'p')
      p += sprintf(p, ".%d", pick(conv == 'a' || conv == 'A' ? 16 : 20));
    p += sprintf(p, "%s%c", lenmod, conv);
    *p = 0;
    if (kind == 0) {
      uint32_t v = pick(3) ? (uint32_t)next() : (uint32_t)(pick(21) - 10);
      if (conv == 'c') /* printable: the table is lines of text */
        v = (uint32_t)(32 + pick(95)) | ((uint32_t)next() & 0xffffff00u);
      snprintf(out, sizeof out, fmt, v);
      printf("%s\ti32\t%x\t%s\n", fmt, v, out);
    } else if (kind == 1) {
      uint64_t v = pick(3) ? next() : (uint64_t)(int64_t)(pick(21) - 10);
      snprintf(out, sizeof out, fmt, v);
      printf("%s\ti64\t%llx\t%s\n", fmt, (unsigned long long)v, out);
    } else if (kind == 2) {
      double d;
      if (pick(2)) {
        d = doubles[pick(sizeof doubles / sizeof *doubles)];
      } else {
        uint64_t b = next();
        memcpy(&d, &b, 8);
      }
      uint64_t bits;
      memcpy(&bits, &d, 8);
      snprintf(out, sizeof out, fmt, d);
      printf("%s\tf64\t%llx\t%s\n", fmt, (unsigned long long)bits, out);
    } else if (conv == 's') {
      const char *s = strings[pick(5)];
      snprintf(out, sizeof out, fmt, s);
      printf("%s\tstr\t%s\t%s\n", fmt, s, out);
    } else {
      uint64_t v = pick(4) ? next() >> pick(64) : 0;
      snprintf(out, sizeof out, fmt, (void *)v);
      printf("%s\ti64\t%llx\t%s\n", fmt, (unsigned long long)v, out);
    }
  }
  return 0;
}
