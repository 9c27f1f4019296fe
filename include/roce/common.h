/* common.h: export macro, error codes and small shared types of the rocedump core library.
 *
 * Conventions follow libpcap: functions return >= 0 on success and a negative ROCE_ERR_* on
 * failure; roce_strerror() turns a code into text. Nothing here depends on libpcap or glib. */
#ifndef ROCE_COMMON_H
#define ROCE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define ROCE_API __attribute__((visibility("default")))
#else
#define ROCE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ROCE_ERRBUF_SIZE 256

enum roce_err {
	ROCE_OK = 0,
	ROCE_ERR_ARG = -1,      /* a parameter is out of range */
	ROCE_ERR_NOSPACE = -2,  /* the output buffer is too small */
	ROCE_ERR_NOMEM = -3,    /* an allocation failed */
	ROCE_ERR_UNSUPPORTED = -4, /* the combination asked for is not supported */
};

/* Text for a ROCE_ERR_* code (a static string, never NULL). */
ROCE_API const char *roce_strerror(int err);

/* Link-layer header types: LINKTYPE_* numbers from tcpdump.org, as in pcap and pcapng files. */
enum roce_linktype {
	ROCE_LINK_ETHERNET = 1,
	ROCE_LINK_RAW = 101,   /* raw IPv4 or IPv6 */
	ROCE_LINK_SLL = 113,   /* Linux cooked capture v1 */
	ROCE_LINK_IPV4 = 228,
	ROCE_LINK_IPV6 = 229,
	ROCE_LINK_SLL2 = 276,  /* Linux cooked capture v2 */
};

/* Checksum (IPv4 header, UDP) verification outcome. */
enum roce_csum {
	ROCE_CSUM_ABSENT = 0,     /* not present (UDP checksum 0) or not applicable */
	ROCE_CSUM_GOOD,
	ROCE_CSUM_BAD,
	ROCE_CSUM_UNVERIFIABLE,   /* the bytes it covers were not all captured */
};
ROCE_API const char *roce_csum_name(enum roce_csum c);

#ifdef __cplusplus
}
#endif
#endif
