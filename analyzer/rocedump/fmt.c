/* fmt.c: address and timestamp text (see fmt.h). */
#include "fmt.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void fmt_mac(char out[18], const uint8_t *m)
{
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < 6; i++) {
		out[3 * i] = hex[m[i] >> 4];
		out[3 * i + 1] = hex[m[i] & 15];
		out[3 * i + 2] = i < 5 ? ':' : '\0';
	}
}

void fmt_ip(char out[FMT_ADDR_MAX], const uint8_t *addr, unsigned len)
{
	if (len == 4) {  /* by hand: glibc's inet_ntop formats IPv4 with sprintf */
		char *o = out;
		for (unsigned i = 0; i < 4; i++) {
			unsigned v = addr[i];
			if (v >= 100)
				*o++ = (char)('0' + v / 100);
			if (v >= 10)
				*o++ = (char)('0' + v / 10 % 10);
			*o++ = (char)('0' + v % 10);
			*o++ = i < 3 ? '.' : '\0';
		}
		return;
	}
	if (!inet_ntop(AF_INET6, addr, out, FMT_ADDR_MAX))
		strcpy(out, "?");
}

void fmt_net_addrs(const struct roce_pkt *p, const uint8_t *frame, char src[FMT_ADDR_MAX], char dst[FMT_ADDR_MAX])
{
	const struct roce_net *n = &p->net;

	src[0] = dst[0] = '\0';
	if (!n->addr_len || n->addr_off + 2u * n->addr_len > roce_readable_len(p->caplen))
		return;
	fmt_ip(src, frame + n->addr_off, n->addr_len);
	fmt_ip(dst, frame + n->addr_off + n->addr_len, n->addr_len);
}

void fmt_time(char out[32], int64_t sec, uint32_t nsec)
{
	/* "HH:MM:SS" changes once a second: keep the last one (single-threaded CLI) */
	static int64_t cached_sec = INT64_MIN;
	static char hms[16];
	unsigned us = nsec / 1000;

	if (sec != cached_sec) {
		time_t t = (time_t)sec;
		struct tm tm;
		if (!gmtime_r(&t, &tm)) {
			snprintf(out, 32, "%lld.%06u", (long long)sec, us);
			return;
		}
		snprintf(hms, sizeof(hms), "%02d:%02d:%02d.", tm.tm_hour, tm.tm_min, tm.tm_sec);
		cached_sec = sec;
	}
	memcpy(out, hms, 9);
	for (int i = 14; i >= 9; i--) {
		out[i] = (char)('0' + us % 10);
		us /= 10;
	}
	out[15] = '\0';
}
