/* The header lines of printf.cu's `pf` (thread 0), shared with reference.c, which
 * prints the same formats and values through the host C library: both define
 * f (float), d (double), s (a string) and the NaNs qn and nqn before including
 * this. */
printf("hello\n");
printf("ints %d %i %u %x %X %o %c|%%\n", -42, 42, 3000000000u, 0xbeef, 0xbeef, 8, 'Z');
printf("longs %ld %lld %llu %lx\n", -1234567890123L, 9000000000LL, 18446744073709551615ull, 0xdeadbeefcafeL);
printf("shorts %hd %hu %hhd %hhx\n", (short)-5, (unsigned short)65535, (signed char)-3, (unsigned char)200);
printf("floats %f %e %g %E %G %.3f|%10.2e|%-10.1f|%+.0f %g %g %F\n", f, d, d, d, 1e-5, f, d, f, 2.5, 100000.0, 1e6, -f);
printf("more %g %g %.10g %#g %#.0f %#.0e %08.3f %-+8.2f| % e\n", 0.0001, 123456789.0, 1.0 / 3.0, 1.0, 3.0, 3.0, -f, f, f);
printf("flags [%5d] [%-5d] [%05d] [%+d] [% d] [%#x] [%#o] [%.3d] [%8.3x] [%-#8x] [%.0d]\n", 42, 42, 42, 42, 42, 255, 8, 7, 255, 255, 0);
printf("strings [%s] [%10s] [%-6s] [%.2s] [%s]\n", s, "ab", "ab", "abcdef", "const");
printf("ptr %p %p [%20p]\n", (void *)0, (void *)0x1000, (void *)0xabcdef);
printf("hex %a %A %a %.2a %a\n", 1.0, -0.1, 0.0, 1.0 / 3.0, 1e-310);
printf("star [%*d] [%-*d] [%.*f] [%*.*e]\n", 6, 42, 6, 42, 2, 3.14159, 12, 3, 2.0e-7);
printf("specials %f %e %g %5.1f %-6f| %+f %f %F %05.1f\n", 1.0 / 0.0 * f, -1.0 / 0.0 * f, qn, 1.0 / 0.0 * f, -1.0 / 0.0 * f, 1.0 / 0.0 * f, nqn, qn, -1.0 / 0.0 * f);
printf("round %.0f %.0f %.0f %.1f %.2f %.3e\n", 0.5, 1.5, 2.5, 0.25, 1.005, 1.0005e10);
