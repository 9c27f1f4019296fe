/* mad_dump.c: print what analyzer/core/mad.c decodes from every MAD on QP1 in a capture, one line
 * per frame, for tests/crosscheck/cm_compare.py to hold against tshark.
 *
 * Usage: mad_dump CAPTURE
 * Line:  frame=N result=<roce_mad_result_name> kind=<roce_cm_kind_name> [name=value ...]
 * Each name is the tshark 4.0 field carrying the same value (`tshark -G fields`, infiniband.mad.*
 * and infiniband.cm.*), values in decimal (addresses dotted); fields appear only when decoded. */
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#include "roce/mad.h"

static unsigned dlt_to_linktype(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB: return ROCE_LINK_ETHERNET;
	case DLT_RAW: return ROCE_LINK_RAW;
	default: return (unsigned)dlt;  /* LINUX_SLL 113, IPV4 228, IPV6 229, LINUX_SLL2 276 */
	}
}

static void kv(const char *name, uint64_t v)
{
	printf(" %s=%" PRIu64, name, v);
}

static void kv_ip4(const char *name, const uint8_t *a16)
{
	printf(" %s=%u.%u.%u.%u", name, a16[12], a16[13], a16[14], a16[15]);
}

static void dump_req(const struct roce_mad *m)
{
	const struct roce_cm_req *r = &m->cm.req;

	kv("infiniband.cm.req", m->local_comm_id);    /* tshark's name for the REQ Local Comm ID */
	kv("infiniband.cm.req.serviceid", r->service_id);
	kv("infiniband.cm.req.localcaguid", r->local_ca_guid);
	kv("infiniband.cm.req.localqkey", r->local_qkey);
	kv("infiniband.cm.req.localqpn", r->local_qpn);
	kv("infiniband.cm.req.responderres", r->responder_resources);
	kv("infiniband.cm.req.localeecn", r->local_eecn);
	kv("infiniband.cm.req.initdepth", r->initiator_depth);
	kv("infiniband.cm.req.remoteeecn", r->remote_eecn);
	kv("infiniband.cm.req.remoteresptout", r->remote_cm_resp_timeout);
	kv("infiniband.cm.req.transpsvctype", r->transport_service_type);
	kv("infiniband.cm.req.e2eflowctrl", r->e2e_flow_ctrl);
	kv("infiniband.cm.req.startpsn", r->starting_psn);
	kv("infiniband.cm.req.localresptout", r->local_cm_resp_timeout);
	kv("infiniband.cm.req.retrcount", r->retry_count);
	kv("infiniband.cm.req.pkey", r->pkey);
	kv("infiniband.cm.req.pppmtu", r->path_mtu);
	kv("infiniband.cm.req.rdcexist", r->rdc_exists);
	kv("infiniband.cm.req.rnrretrcount", r->rnr_retry_count);
	kv("infiniband.cm.req.maxcmretr", r->max_cm_retries);
	kv("infiniband.cm.req.srq", r->srq);
	kv("infiniband.cm.req.ext_transport", r->extended_transport);
	kv("infiniband.cm.req.prim_locallid", r->primary_local_lid);
	kv("infiniband.cm.req.prim_remotelid", r->primary_remote_lid);
	kv("infiniband.cm.req.prim_flowlabel", r->primary_flow_label);
	kv("infiniband.cm.req.prim_pktrate", r->primary_packet_rate);
	kv("infiniband.cm.req.prim_tfcclass", r->primary_traffic_class);
	kv("infiniband.cm.req.prim_hoplim", r->primary_hop_limit);
	kv("infiniband.cm.req.prim_sl", r->primary_sl);
	kv("infiniband.cm.req.prim_subnetlocal", r->primary_subnet_local);
	kv("infiniband.cm.req.prim_localacktout", r->primary_local_ack_timeout);
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(r->primary_local_gid, v4mapped, 12) == 0)
		kv_ip4("infiniband.cm.req.prim_localgid_ipv4", r->primary_local_gid);
	if (memcmp(r->primary_remote_gid, v4mapped, 12) == 0)
		kv_ip4("infiniband.cm.req.prim_remotegid_ipv4", r->primary_remote_gid);
	if (r->has_ip_cm) {
		kv("infiniband.cm.req.ip_cm.majv", r->ip_cm_major);
		kv("infiniband.cm.req.ip_cm.minv", r->ip_cm_minor);
		kv("infiniband.cm.req.ip_cm.ipv", r->ip_cm_ip_version);
		kv("infiniband.cm.req.ip_cm.sport", r->ip_cm_src_port);
		if (r->ip_cm_ip_version == 4) {
			kv_ip4("infiniband.cm.req.ip_cm.sip4", r->ip_cm_src);
			kv_ip4("infiniband.cm.req.ip_cm.dip4", r->ip_cm_dst);
		}
	}
}

static void dump_rep(const struct roce_mad *m)
{
	const struct roce_cm_rep *r = &m->cm.rep;

	kv("infiniband.cm.rep", m->local_comm_id);    /* tshark's name for the REP Local Comm ID */
	kv("infiniband.cm.rep.remotecommid", m->remote_comm_id);
	kv("infiniband.cm.rep.localqkey", r->local_qkey);
	kv("infiniband.cm.rep.localqpn", r->local_qpn);
	kv("infiniband.cm.rep.localeecn", r->local_eecn);
	kv("infiniband.cm.rep.startpsn", r->starting_psn);
	kv("infiniband.cm.rep.respres", r->responder_resources);
	kv("infiniband.cm.rep.initdepth", r->initiator_depth);
	kv("infiniband.cm.rep.tgtackdelay", r->target_ack_delay);
	kv("infiniband.cm.rep.failoveracc", r->failover_accepted);
	kv("infiniband.cm.rep.e2eflowctrl", r->e2e_flow_ctrl);
	kv("infiniband.cm.rep.rnrretrcount", r->rnr_retry_count);
	kv("infiniband.cm.rep.srq", r->srq);
	kv("infiniband.cm.rep.localcaguid", r->local_ca_guid);
}

static void dump(unsigned long frame, const struct roce_mad *m)
{
	printf("frame=%lu result=%s kind=%s", frame, roce_mad_result_name(m->result),
	       roce_cm_kind_name(m->cm_kind));
	if (m->result != ROCE_MAD_TRUNC_HDR) {
		kv("infiniband.mad.baseversion", m->hdr.base_version);
		kv("infiniband.mad.mgmtclass", m->hdr.mgmt_class);
		kv("infiniband.mad.classversion", m->hdr.class_version);
		kv("infiniband.mad.method", (unsigned)m->hdr.r << 7 | m->hdr.method);
		kv("infiniband.mad.status", m->hdr.status);
		kv("infiniband.mad.classspecific", m->hdr.class_specific);
		kv("infiniband.mad.transactionid", m->hdr.tid);
		kv("infiniband.mad.attributeid", m->hdr.attr_id);
		kv("infiniband.mad.attributemodifier", m->hdr.attr_mod);
	}
	if (m->result == ROCE_MAD_OK) {
		switch (m->cm_kind) {
		case ROCE_CM_REQ:
			dump_req(m);
			break;
		case ROCE_CM_REP:
			dump_rep(m);
			break;
		case ROCE_CM_RTU:
			kv("infiniband.cm.rtu.localcommid", m->local_comm_id);
			kv("infiniband.cm.rtu.remotecommid", m->remote_comm_id);
			break;
		case ROCE_CM_DREQ:
			kv("infiniband.cm.dreq.localcommid", m->local_comm_id);
			kv("infiniband.cm.dreq.remotecommid", m->remote_comm_id);
			kv("infiniband.cm.req.remoteqpneecn", m->cm.dreq.remote_qpn); /* sic */
			break;
		case ROCE_CM_DREP:
			kv("infiniband.cm.drsp.localcommid", m->local_comm_id);
			kv("infiniband.cm.drsp.remotecommid", m->remote_comm_id);
			break;
		case ROCE_CM_REJ:
			kv("infiniband.cm.rej.localcommid", m->local_comm_id);
			kv("infiniband.cm.rej.remotecommid", m->remote_comm_id);
			kv("infiniband.cm.rej.msgrej", m->cm.rej.msg_rejected);
			kv("infiniband.cm.rej.rejinfolen", m->cm.rej.reject_info_len);
			kv("infiniband.cm.rej.reason", m->cm.rej.reason);
			break;
		case ROCE_CM_MRA:   /* tshark 4.0 has no MRA fields */
			kv("mra.localcommid", m->local_comm_id);
			kv("mra.remotecommid", m->remote_comm_id);
			kv("mra.msgmraed", m->cm.mra.msg_mraed);
			kv("mra.servicetimeout", m->cm.mra.service_timeout);
			break;
		default:
			break;
		}
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";

	if (argc != 2) {
		fprintf(stderr, "usage: %s CAPTURE\n", argv[0]);
		return 2;
	}
	pcap_t *pc = pcap_open_offline(argv[1], errbuf);
	if (!pc) {
		fprintf(stderr, "%s: %s\n", argv[1], errbuf);
		return 2;
	}
	unsigned linktype = dlt_to_linktype(pcap_datalink(pc));
	struct pcap_pkthdr *ph;
	const u_char *data;
	unsigned long frame = 0;
	int rc;
	while ((rc = pcap_next_ex(pc, &ph, &data)) == 1) {
		struct roce_pkt pkt;
		struct roce_mad m;
		frame++;
		if (!roce_decode(NULL, data, ph->caplen, ph->len, linktype, &pkt))
			continue;
		roce_mad_decode_pkt(&pkt, data, &m);
		if (m.result != ROCE_MAD_NOT_QP1)
			dump(frame, &m);
	}
	if (rc == PCAP_ERROR) {
		fprintf(stderr, "%s: %s\n", argv[1], pcap_geterr(pc));
		pcap_close(pc);
		return 2;
	}
	pcap_close(pc);
	return 0;
}
