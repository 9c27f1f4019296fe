/* fmt.c: address and timestamp text (see fmt.h). */
#include "fmt.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void fmt_mac(char out[18], const uint8_t *m)
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

void fmt_ip(char out[FMT_ADDR_MAX], const uint8_t *addr, unsigned len)
{
	if (!inet_ntop(len == 4 ? AF_INET : AF_INET6, addr, out, FMT_ADDR_MAX))
		strcpy(out, "?");
}

void fmt_net_addrs(const struct roce_pkt *p, const uint8_t *frame, char src[FMT_ADDR_MAX], char dst[FMT_ADDR_MAX])
{
	const struct roce_net *n = &p->net;

	src[0] = dst[0] = '\0';
	if (!n->addr_len || n->addr_off + 2u * n->addr_len > p->caplen)
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
