/* pcapng.h: the numbers of the pcapng format that rocedump reads and writes (IETF
 * draft-ietf-opsawg-pcapng: §3.1 block layout, §4.1-4.6 the block types, their options).
 *
 * Every block is type (4) | total length (4) | body | total length (4), in the byte order the
 * Section Header Block's byte-order magic sets for its section; an option is code (2) | length
 * (2) | value padded to 4 bytes, the list ended by code 0. */
#ifndef ROCEDUMP_PCAPNG_H
#define ROCEDUMP_PCAPNG_H

#define PCAPNG_BT_SHB 0x0A0D0D0Au      /* Section Header Block: reads the same in both orders */
#define PCAPNG_BT_IDB 0x00000001u      /* Interface Description Block */
#define PCAPNG_BT_PB 0x00000002u       /* Packet Block (obsolete) */
#define PCAPNG_BT_SPB 0x00000003u      /* Simple Packet Block */
#define PCAPNG_BT_ISB 0x00000005u      /* Interface Statistics Block */
#define PCAPNG_BT_EPB 0x00000006u      /* Enhanced Packet Block */
#define PCAPNG_BYTE_ORDER_MAGIC 0x1A2B3C4Du

#define PCAPNG_BLOCK_HDR 8u            /* type and total length */
#define PCAPNG_BLOCK_MIN 12u           /* header and trailer */
#define PCAPNG_SHB_MIN 28u             /* with byte-order magic, versions, section length */
#define PCAPNG_EPB_FIXED 20u           /* interface id, time stamp high and low, lengths */
#define PCAPNG_SPB_FIXED 4u            /* original length */
#define PCAPNG_IDB_FIXED 8u            /* link type, reserved, snapshot length */

#define PCAPNG_OPT_ENDOFOPT 0
#define PCAPNG_OPT_COMMENT 1
#define PCAPNG_OPT_SHB_USERAPPL 4
#define PCAPNG_OPT_IF_NAME 2
#define PCAPNG_OPT_IF_TSRESOL 9
#define PCAPNG_OPT_IF_TSOFFSET 14
#define PCAPNG_OPT_ISB_STARTTIME 2
#define PCAPNG_OPT_ISB_ENDTIME 3
#define PCAPNG_OPT_ISB_IFRECV 4
#define PCAPNG_OPT_ISB_IFDROP 5
#define PCAPNG_OPT_ISB_OSDROP 7

#endif
