/* report.js: draws rocedump --report's page from its JSON blocks (rd-summary, rd-streams,
 * rd-report) with uPlot. Every number shown comes from those blocks; the script computes only
 * what a plot needs from the points (rates per time bin, the distribution of response times).
 *
 * For tests and scripts, each plot's container records what was drawn: data-plot (its kind),
 * data-points (values drawn), data-row (the stream's row); <body> gets data-plots (plots drawn)
 * and data-ready="1" once the page is built, or data-error with the message if it failed;
 * #rd-ts-note is the note on time stamps out of order or absurd (rd-report's timestamps);
 * table.mirror in #rd-mirror, the mirror sessions (rd-summary's mirror block).
 * table.path in #rd-path, the path analysis's hops (rd-summary's path block), and the plots
 * hop-delay and hop-loss there (rd-report's hops).
 * The URL fragment #all opens every plotted queue pair (the default opens the first). */
(function () {
	'use strict';

	/* point kinds and flags, as report_data.h */
	const RK = { REQ: 0, ACK: 1, NAK: 2, RNR: 3, RRESP: 4, AACK: 5, CNP: 6, CE_MISSED: 7 };
	const RF = { RETX: 1, OOO: 2, GAP: 4, TMO: 8, END: 16, READ: 32, ERROR: 64, RECOVER: 128, CE: 256, COPY: 512, UNEXPECTED: 1024 };
	const RP = { STORM: 1, EXPIRED: 2, OPEN: 4 };  /* pause intervals' flags */
	const NAK_NAMES = ['PSN sequence error', 'invalid request', 'remote access error', 'remote operational error', 'invalid RD request'];
	const SEV_ORDER = { error: 0, warn: 1, info: 2 };
	const COLOR = {
		req: '#1f5fa8', retx: '#d62728', ooo: '#9467bd', tmo: '#ff7f0e', ack: '#2ca02c', nak: '#d62728',
		rnr: '#8c564b', rretx: '#0b6e79', nakm: '#111111', rresp: '#17becf', error: '#b3261e', warn: '#e08a00', info: '#5b8bd0', bytes: '#1f5fa8', msgs: '#2ca02c',
		copy: '#9a9a9a', pause: '#5b8bd0', storm: '#d62728', cnp: '#2ca02c', missed: '#d62728', ce: '#ff7f0e', ce2: '#9467bd',
	};
	const HOP_COLORS = ['#1f5fa8', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
	const PLOT_W = 880, PLOT_H = 250;
	const TABLE_PAGE = 200;  /* pairs shown in the table at first, and per click */
	const PFC_LANES = 32;    /* source MACs a pause timeline draws */

	const MAX_S = 1e10;      /* seconds: the x values drawn lie within ±MAX_S of the first frame */
	const REL_MIN = 1e-10;   /* the least x range drawn, relative to its x values: well above a double's resolution */

	let plotsDrawn = 0;
	let maxBins = 256;       /* bins a binned series may have: rd-report's options.bins */

	function el(tag, attrs, ...kids) {
		const e = document.createElement(tag);
		for (const [k, v] of Object.entries(attrs || {})) {
			if (k === 'class') e.className = v;
			else if (k === 'text') e.textContent = v;
			else e.setAttribute(k, v);
		}
		for (const k of kids) if (k !== null && k !== undefined) e.append(k);
		return e;
	}
	function readJSON(id) {
		return JSON.parse(document.getElementById(id).textContent);
	}
	function fmtInt(n) {
		return n === null || n === undefined ? '-' : Number(n).toLocaleString('en-US');
	}
	function fmtBytes(n) {
		const u = ['B', 'kB', 'MB', 'GB', 'TB'];
		let i = 0;
		while (n >= 1000 && i < u.length - 1) { n /= 1000; i++; }
		return (i ? n.toFixed(n < 10 ? 2 : 1) : n) + ' ' + u[i];
	}
	function fmtUs(us) {
		if (us === null || us === undefined) return '-';
		if (us >= 1e6) return (us / 1e6).toFixed(3) + ' s';
		if (us >= 1e3) return (us / 1e3).toFixed(3) + ' ms';
		return us + ' µs';
	}
	function table(head, rows, cls) {
		const t = el('table', cls ? { class: cls } : {});
		if (head) t.append(el('tr', {}, ...head.map(h => el('th', typeof h === 'string' ? { text: h } : h))));
		for (const r of rows) t.append(el('tr', {}, ...r.map(c => (c instanceof Node ? el('td', {}, c) : el('td', c && typeof c === 'object' ? c : { text: String(c) })))));
		return t;
	}
	function num(v) { return { class: 'n', text: fmtInt(v) }; }

	/* Record a drawn plot on its container. */
	function record(box, kind, points, row) {
		box.dataset.plot = kind;
		box.dataset.points = String(points);
		if (row !== undefined) box.dataset.row = String(row);
		plotsDrawn++;
		document.body.dataset.plots = String(plotsDrawn);
	}

	/* ---- time: µs since the first frame (the JSON's) as seconds for the x axes ---- */

	/* µs as seconds, finite and within ±MAX_S. */
	function seconds(us) {
		const s = Number(us) / 1e6;
		return Number.isFinite(s) ? Math.max(-MAX_S, Math.min(MAX_S, s)) : 0;
	}
	/* The least distance of two x values near x that a double and uPlot's ticks tell apart. */
	function minSpan(x) {
		return Math.max(1e-9, Math.abs(x) * REL_MIN);
	}
	/* An x range drawn: finite, ordered, and wide enough for its magnitude (uPlot's tick loop
	 * adds the tick step to a value: a step below the value's resolution never ends). */
	function safeRange(r) {
		let lo = Number.isFinite(r && r[0]) ? r[0] : 0, hi = Number.isFinite(r && r[1]) ? r[1] : lo;
		lo = Math.max(-MAX_S, Math.min(MAX_S, lo));
		hi = Math.max(-MAX_S, Math.min(MAX_S, hi));
		if (hi < lo) [lo, hi] = [hi, lo];
		const min = Math.max(1e-6, minSpan(Math.max(Math.abs(lo), Math.abs(hi))));
		if (hi - lo < min) {
			const mid = lo / 2 + hi / 2;
			[lo, hi] = [mid - min / 2, mid + min / 2];
		}
		return [lo, hi];
	}
	/* Ticks of a time axis, as uPlot's own (the multiples of the step in the range), at most 1,000. */
	function timeSplits(u, axis, min, max, incr) {
		const out = [];
		if (!(incr > 0) || !Number.isFinite(min) || !Number.isFinite(max)) return out;
		const k0 = Math.ceil(min / incr);
		for (let k = 0; k < 1000; k++) {
			const v = (k0 + k) * incr;
			if (v > max) break;
			if (!out.length || v > out[out.length - 1]) out.push(v);
		}
		return out;
	}
	/* The width (s) of n bins the script makes over [t0, t1]: 1 µs when the times are equal, no
	 * narrower than minSpan. */
	function binWidth(t0, t1, n) {
		return Math.max((t1 - t0) / n || 1e-6, minSpan(Math.max(Math.abs(t0), Math.abs(t1))));
	}
	/* A binned series (the timeline, a stream's bins, its congestion outcomes' bins): at most
	 * maxBins bins; bin b starts at x(b) s and is w s wide. */
	function binAxis(s) {
		const t0 = seconds(s.t0), w = Math.max(seconds(s.width), minSpan(t0));
		return { n: Math.max(0, Math.min(s.n | 0, maxBins)), w: w, x: b => t0 + w * b };
	}

	/* A uPlot in a new box under parent; data: [xs, ys...] (aligned, nulls for gaps). */
	function plot(parent, kind, row, title, xLabel, yLabel, series, data, extra) {
		const box = el('div', { class: 'plot' });
		parent.append(box);
		let points = 0;
		for (let s = 1; s < data.length; s++) for (const v of data[s]) if (v !== null && v !== undefined) points++;
		const opts = Object.assign({
			title: title, width: PLOT_W, height: PLOT_H,
			scales: { x: { time: false } },
			axes: [{ label: xLabel }, { label: yLabel, size: 90 }],
			series: [{ label: xLabel }].concat(series),
			cursor: { drag: { x: true, y: true, uni: 20 } },
		}, extra || {});
		if (/^time since/.test(opts.axes[0].label)) {
			/* seconds since the first frame: ticks and the x range safe whatever the values */
			opts.axes = [Object.assign({ values: timeTicks, splits: timeSplits }, opts.axes[0])].concat(opts.axes.slice(1));
			const x = opts.scales.x || {}, range = x.range;
			opts.scales = Object.assign({}, opts.scales, { x: Object.assign({}, x, {
				range: (u, lo, hi) => safeRange(typeof range === 'function' ? range(u, lo, hi) : [lo, hi]) }) });
		}
		if (data[0].length) new uPlot(opts, data, box);
		else box.append(el('p', { class: 'note', text: title + ': nothing to plot' }));
		record(box, kind, points, row);
		return box;
	}
	/* Tick labels of a time axis in seconds: in s, ms or µs, with the digits the step needs. */
	function timeTicks(u, vals) {
		const step = vals.length > 1 ? Math.abs(vals[1] - vals[0]) : Math.abs(vals[0] || 1);
		const [mul, unit] = step >= 0.1 ? [1, ' s'] : step >= 1e-4 ? [1e3, ' ms'] : [1e6, ' µs'];
		let digits = 0;  /* as many as the step has: 2.5 ms steps get one */
		while (digits < 6 && Math.abs(Math.round(step * mul * 10 ** digits) - step * mul * 10 ** digits) > 1e-6 * 10 ** digits) digits++;
		return vals.map(v => (v * mul).toFixed(digits) + unit);
	}
	function pointSeries(label, color, size) {
		return { label: label, stroke: color, fill: color, width: 0, paths: () => null, points: { show: true, size: size || 4, stroke: color, fill: color } };
	}
	function lineSeries(label, color, stepped) {
		const s = { label: label, stroke: color, width: 1.5, spanGaps: true, points: { show: false } };
		if (stepped) s.paths = uPlot.paths.stepped({ align: 1 });
		return s;
	}
	/* Scatter of several series of [x, y] pairs into uPlot's aligned form: one x per point. */
	function aligned(lists) {
		const all = [];
		lists.forEach((l, si) => { for (const [x, y] of l) all.push([x, si, y]); });
		all.sort((a, b) => a[0] - b[0]);
		const data = [all.map(a => a[0])];
		for (let si = 0; si < lists.length; si++) data.push(new Array(all.length).fill(null));
		all.forEach((a, i) => { data[a[1] + 1][i] = a[2]; });
		return data;
	}
	/* Column arrays of a points object as objects. */
	function points(p) {
		const out = [];
		if (!p) return out;
		for (let i = 0; i < p.n; i++)
			out.push({ t: seconds(p.t[i]), frame: p.frame[i], psn: p.psn[i], kind: p.kind[i], flags: p.flags[i], code: p.code[i], len: p.len[i], val: p.val[i] });
		return out;
	}

	/* ---- overview ---- */

	/* A note at the top when time stamps go back, lie before 1970 or beyond the years the report
	 * draws, or span more than 10 years: the plots' times are then not the frames' real ones. */
	function timeNote(main, rep) {
		const ts = rep.timestamps || {};
		const frames = n => fmtInt(n) + (n === 1 ? ' frame' : ' frames');
		const year = s => new Date(s * 1000).getUTCFullYear();
		const says = [];
		if (ts.backwards) says.push(frames(ts.backwards) + ' earlier than the frame before (out of order; the largest step back ' + fmtUs(ts.max_step_back_us) + ')');
		if (ts.before_1970) says.push(frames(ts.before_1970) + ' stamped before 1970');
		if (ts.clamped) says.push(frames(ts.clamped) + ' stamped beyond the years ' + year(-ts.limit_s) + ' to ' + year(ts.limit_s) + ', drawn at that limit');
		if (ts.absurd_span) says.push('the frames span ' + (seconds(rep.span_us) / 31557600).toFixed(1) + ' years, more than 10: absurd time stamps');
		if (!says.length) return;
		main.prepend(el('p', { class: 'warning', id: 'rd-ts-note', 'data-backwards': String(ts.backwards), 'data-clamped': String(ts.clamped),
			text: 'Time stamps: ' + says.join('; ') + '. The plots place each frame at its time stamp, bins widened to hold them all.' }));
	}

	function overview(main, sum, streams, rep) {
		const sec = el('section', { id: 'rd-overview' }, el('h2', { text: 'Overview' }));
		main.append(sec);
		const first = rep.first_ts.split('.');
		const d0 = new Date(Number(first[0]) * 1000);
		const firstDate = isNaN(d0) ? rep.first_ts + ' s since 1970' : d0.toISOString().replace('.000Z', '.' + first[1] + ' UTC').replace('T', ' ');
		const cap = sum.capture || {};
		const drops = cap.if_drops === undefined && cap.os_drops === undefined
			? 'not recorded (' + (cap.format || 'unknown') + ')'
			: 'interface ' + (cap.if_drops === null ? 'n/a' : fmtInt(cap.if_drops)) + ', OS ' + (cap.os_drops === null ? 'n/a' : fmtInt(cap.os_drops));
		const facts = [
			['capture', rep.capture],
			['first frame', sum.frames ? firstDate : '-'],
			['span', sum.frames ? fmtUs(rep.span_us) : '-'],
			['frames', fmtInt(sum.frames) + ' (' + fmtBytes(sum.bytes) + ')'],
			['RoCE', fmtInt(sum.roce.v1 + sum.roce.v2) + ' (v1 ' + fmtInt(sum.roce.v1) + ', v2 ' + fmtInt(sum.roce.v2) + '); not RoCE ' + fmtInt(sum.not_roce)],
			['capture drops', drops],
			['streams', fmtInt(streams.count) + ' (evicted ' + fmtInt(streams.evicted) + '); queue pairs ' + fmtInt(rep.pairs_total) +
				(rep.pairs_listed < rep.pairs_total ? ', the ' + fmtInt(rep.pairs_listed) + ' most troubled listed' : '')],
		];
		if (rep.streams_without_series) facts.push(['streams without series', fmtInt(rep.streams_without_series) + ' (the report\'s memory budget ran out)']);
		const icrc = table(['ICRC', { class: 'n', text: 'frames' }], [
			['good', num(sum.icrc.good)], ['bad', { class: sum.icrc.bad ? 'n sev-error' : 'n', text: fmtInt(sum.icrc.bad) }],
			['unverifiable', num(sum.icrc.unverifiable)]]);
		const evInfo = {};
		for (const e of rep.event_table) evInfo[e.name] = e;
		const evRows = Object.entries(sum.events).map(([name, n]) => ({ name: name, n: n, sev: (evInfo[name] || {}).severity || 'info' }));
		evRows.sort((a, b) => SEV_ORDER[a.sev] - SEV_ORDER[b.sev] || b.n - a.n || (a.name < b.name ? -1 : 1));
		const events = evRows.length
			? table(['event', 'severity', { class: 'n', text: 'count', title: 'frames with the event' },
				{ class: 'n', text: 'findings', title: 'the analyzer\'s findings of it: a frame may carry several (cnp.missing: each CE mark whose CNP did not come)' },
				'meaning'], evRows.map(e => [
				{ class: 'mono', text: e.name }, { class: 'sev-' + e.sev, text: e.sev }, num(e.n),
				(sum.findings || {})[e.name] ? num(sum.findings[e.name].count) : '', (evInfo[e.name] || {}).description || '']), 'events')
			: el('p', { text: 'No events.' });
		sec.append(el('div', { class: 'grid' }, table(null, facts, 'facts'), icrc), el('h3', { text: 'Events' }), events);
		timeline(sec, rep);
	}

	/* Events over the capture, binned, stacked by severity; a click lists a bin's frames. */
	function timeline(sec, rep) {
		const tl = rep.timeline;
		sec.append(el('h3', { text: 'Event timeline' }));
		if (!tl.n) { sec.append(el('p', { class: 'note', text: 'No frames.' })); return; }
		const xs = [], info = [], warn = [], error = [], frames = [], bytes = [];
		const ax = binAxis(tl), w = ax.w;
		for (let i = 0; i < ax.n; i++) {
			xs.push(ax.x(i));
			info.push(tl.info[i]);
			warn.push(tl.info[i] + tl.warn[i]);
			error.push(tl.info[i] + tl.warn[i] + tl.error[i]);
			frames.push(tl.frames[i] / w);
			bytes.push(tl.bytes[i] / w);
		}
		const raw = [null, tl.error, tl.warn, tl.info];
		const bars = uPlot.paths.bars({ size: [1, Infinity], align: 1 });
		const legendRaw = (u, v, si, i) => (i === null || i === undefined ? '-' : fmtInt(raw[si][i]));
		const info_ = el('div', { class: 'bin-frames', id: 'rd-bin-frames', text: 'Click a bar for its frames.' });
		const box = plot(sec, 'timeline', undefined, 'Events per ' + fmtUs(tl.width) + ' bin, by severity (stacked)', 'time since the first frame', 'events', [
			{ label: 'error', stroke: COLOR.error, fill: COLOR.error, paths: bars, points: { show: false }, value: legendRaw },
			{ label: 'warn', stroke: COLOR.warn, fill: COLOR.warn, paths: bars, points: { show: false }, value: legendRaw },
			{ label: 'info', stroke: COLOR.info, fill: COLOR.info, paths: bars, points: { show: false }, value: legendRaw },
		], [xs, error, warn, info], {
			scales: { x: { time: false, range: (u, lo, hi) => [xs[0], xs[xs.length - 1] + w] } },
			hooks: { ready: [u => u.over.addEventListener('click', () => showBin(u.cursor.idx))] },
		});
		box.dataset.points = String(tl.error.reduce((a, b) => a + b, 0) + tl.warn.reduce((a, b) => a + b, 0) + tl.info.reduce((a, b) => a + b, 0));
		box.dataset.bins = String(xs.length);
		sec.append(info_);
		function showBin(i) {
			if (i === null || i === undefined) return;
			const list = tl.frame_list[i], n = tl.ev_frames[i];
			const t0 = xs[i], t1 = t0 + w;
			info_.textContent = t0.toFixed(6) + '-' + t1.toFixed(6) + ' s: ' + fmtInt(n) + ' frames with events' +
				(n ? ': ' + list.join(', ') + (n > list.length ? ' … (+' + fmtInt(n - list.length) + ' more)' : '') : '');
		}
		const firstWithEvents = tl.ev_frames.findIndex(n => n > 0);
		if (firstWithEvents >= 0) showBin(firstWithEvents);
		plot(sec, 'io', undefined, 'Traffic per ' + fmtUs(tl.width) + ' bin', 'time since the first frame', 'frames/s', [
			lineSeries('frames/s', COLOR.req), Object.assign(lineSeries('bytes/s', COLOR.msgs), { scale: 'bytes' }),
		], [xs, frames, bytes], { axes: [{ label: 'time since the first frame' }, { label: 'frames/s', size: 70 }, { label: 'bytes/s', scale: 'bytes', side: 1, size: 80, grid: { show: false } }] });
	}

	/* ---- congestion ---- */

	function macOf(n) {
		return n.toString(16).padStart(12, '0').match(/../g).join(':');
	}

	/* PFC/PAUSE per source MAC and priority, CNPs answering no one stream, and the streams' ECN
	 * and CNP figures; one pause timeline per priority. Nothing when the capture has none. */
	function congestion(main, sum, streams, rep) {  /* sum: rd-summary, its pfc, pause and cnp_unattributed */
		const pfc = (sum.pfc || []).concat((sum.pause || []).map(r => Object.assign({ priority: -1 }, r)));
		const rows = streams.rows.filter(r => r.congestion && (r.congestion.ecn.ect0 || r.congestion.ecn.ect1 || r.congestion.ecn.ce ||
			r.congestion.cnps || r.congestion.cnp_missing || r.congestion.cnp_pending || r.congestion.fecn || r.congestion.becn));
		const unattr = sum.cnp_unattributed || [];
		if (!pfc.length && !rows.length && !unattr.length && !rep.pauses.n) return;
		const sec = el('section', { id: 'rd-congestion' }, el('h2', { text: 'Congestion' }));
		main.append(sec);
		const prioName = p => (p < 0 ? 'PAUSE' : 'p' + p);
		if (pfc.length) {
			sec.append(el('h3', { text: 'PFC and PAUSE by source MAC and priority' }),
				el('p', { class: 'note', text: 'A PFC frame from a MAC pauses the traffic toward that MAC; paused time is the union of the pause intervals, clipped at the capture\'s end.' }),
				table(['source', 'priority', { class: 'n', text: 'frames' }, { class: 'n', text: 'XOFF' }, { class: 'n', text: 'XON' }, { class: 'n', text: 'paused' },
					{ class: 'n', text: 'longest' }, { class: 'n', text: 'paused %' }, { class: 'n', text: 'storms' }],
				pfc.map(r => [{ class: 'mono', text: r.src }, prioName(r.priority), num(r.frames), num(r.xoff), num(r.xon), { class: 'n', text: fmtUs(r.paused_ns / 1e3) },
					{ class: 'n', text: fmtUs(r.longest_ns / 1e3) }, { class: 'n', text: (100 * r.paused_fraction).toFixed(2) },
					{ class: r.storms ? 'n sev-error' : 'n', text: fmtInt(r.storms) }]), 'pfc'));
			if (sum.pfc_untracked) sec.append(el('p', { class: 'note', text: fmtInt(sum.pfc_untracked) + ' frames of sources past the first 4,096 not accounted.' }));
			pauseTimelines(sec, pfc, rep);
		}
		if (unattr.length)
			sec.append(el('h3', { text: 'CNPs answering no one stream' }),
				table(['source', 'destination', { class: 'n', text: 'CNPs' }, { class: 'n', text: 'ambiguous' }],
					unattr.map(r => [{ class: 'mono', text: r.src }, { class: 'mono', text: r.dst }, num(r.cnps), num(r.ambiguous)])));
		if (rows.length) {
			const us = ns => fmtUs(Math.round(ns / 10) / 100);
			sec.append(el('h3', { text: 'ECN and CNPs by stream' }),
				el('p', { class: 'note', text: 'Packets by ECN codepoint; CNPs from the destination answering the stream\'s CE marks; CE marks left without a CNP (cnp.missing) or still waiting at the end; CE mark → CNP latency.' }),
				table(['pair', 'stream', 'source > destination QP', { class: 'n', text: 'not-ECT' }, { class: 'n', text: 'ECT(0)' }, { class: 'n', text: 'ECT(1)' },
					{ class: 'n', text: 'CE' }, { class: 'n', text: 'CNPs' }, { class: 'n', text: 'unexp.', title: 'CNPs answering no CE mark (cnp.unexpected)' },
					{ class: 'n', text: 'missing', title: 'CE marks due a CNP that did not come (cnp.missing)' }, { class: 'n', text: 'pending', title: 'CE marks still waiting for a CNP at the end' },
					{ class: 'n', text: 'CE→CNP p50 / p99 / max' }, { class: 'n', text: 'F/BECN' }],
				rows.map(r => { const c = r.congestion, l = c.ce_to_cnp_ns; return [num(r.pair), num(r.stream), { class: 'mono', text: endpoint(r) },
					num(c.ecn.not_ect), num(c.ecn.ect0), num(c.ecn.ect1), num(c.ecn.ce), num(c.cnps), num(c.cnp_unexpected),
					{ class: c.cnp_missing ? 'n sev-warn' : 'n', text: fmtInt(c.cnp_missing) }, num(c.cnp_pending),
					{ class: 'n', text: l ? us(l.p50) + ' / ' + us(l.p99) + ' / ' + us(l.max) : '-' }, { class: 'n', text: c.fecn + '/' + c.becn }]; }), 'ecn'));
		}
	}

	/* Per priority: a lane per source MAC, its pause intervals as bars (storms red; lighter, a pause
	 * no frame ended: its timer ran out unseen, or the capture ended), and ticks where RoCE frames
	 * went toward it inside a pause. */
	function pauseTimelines(sec, pfc, rep) {
		const P = rep.pauses, into = points(rep.into_pause.points);
		const prios = [...new Set(pfc.map(r => r.priority))].sort((a, b) => (a < 0) - (b < 0) || a - b);
		const t1 = seconds(rep.span_us);
		if (P.dropped) sec.append(el('p', { class: 'note', text: fmtInt(P.dropped) + ' pause intervals past the first ' + fmtInt(P.n) + ' are not drawn.' }));
		for (const prio of prios) {
			/* the sources paused longest first, up to PFC_LANES of them */
			const all = pfc.filter(r => r.priority === prio).sort((a, b) => b.paused_ns - a.paused_ns);
			const lanes = all.slice(0, PFC_LANES).map(r => r.src);
			if (all.length > lanes.length) sec.append(el('p', { class: 'note', text: (prio < 0 ? 'PAUSE' : 'Priority ' + prio) + ': the ' + PFC_LANES + ' sources paused longest of ' + fmtInt(all.length) + ' are drawn.' }));
			const iv = [];
			for (let i = 0; i < P.n; i++)
				if (P.priority[i] === prio && lanes.includes(P.src[i])) iv.push({ lane: lanes.indexOf(P.src[i]), t: seconds(P.start[i]), len: seconds(P.len[i]), flags: P.flags[i] });
			const ticks = into.filter(q => (q.code === 8 ? -1 : q.code) === prio).map(q => ({ lane: lanes.indexOf(macOf(q.psn)), t: q.t, frame: q.frame }))
				.filter(q => q.lane >= 0);
			const storms = iv.filter(v => v.flags & RP.STORM).length;
			const drawRects = u => {
				const ctx = u.ctx, h = Math.max(4, (u.bbox.height / lanes.length) * 0.6);
				ctx.save();
				ctx.beginPath();
				ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
				ctx.clip();
				for (const v of iv) {
					const x0 = u.valToPos(v.t, 'x', true), x1 = u.valToPos(v.t + v.len, 'x', true), y = u.valToPos(v.lane, 'y', true);
					ctx.fillStyle = v.flags & RP.STORM ? COLOR.storm : COLOR.pause;
					ctx.globalAlpha = v.flags & RP.OPEN ? 0.5 : 0.85;
					ctx.fillRect(x0, y - h / 2, Math.max(1, x1 - x0), h);
				}
				ctx.globalAlpha = 1;
				ctx.fillStyle = '#111';
				for (const q of ticks) {
					const x = u.valToPos(q.t, 'x', true), y = u.valToPos(q.lane, 'y', true);
					ctx.fillRect(x - 1, y - h / 2 - 4, 2, h + 8);
				}
				ctx.restore();
			};
			const xs = [0, t1 || 1e-6];
			const box = plot(sec, 'pfc', undefined, (prio < 0 ? 'PAUSE (all traffic)' : 'PFC priority ' + prio) + ': paused intervals per source MAC' +
				(storms ? ' (' + storms + ' storm' + (storms > 1 ? 's' : '') + ' in red)' : '') + (ticks.length ? ', black ticks: RoCE frames sent into a pause' : ''),
				'time since the first frame', 'source',
				[{ label: 'paused', stroke: COLOR.pause, fill: COLOR.pause, points: { show: false }, paths: () => null },
					{ label: 'storm', stroke: COLOR.storm, fill: COLOR.storm, points: { show: false }, paths: () => null }],
				[xs, [null, null], [null, null]], {
					height: 90 + 28 * lanes.length, legend: { show: false },
					scales: { x: { time: false, range: () => [0, xs[1]] }, y: { range: () => [-0.5, lanes.length - 0.5] } },
					axes: [{ label: 'time since the first frame' }, { label: 'source', size: 150, space: 8, splits: () => lanes.map((_, i) => i), values: (u, v) => v.map(i => lanes[i] || '') }],
					hooks: { draw: [drawRects] },
				});
			box.dataset.points = String(iv.length);
			box.dataset.priority = String(prio);
			box.dataset.pausedUs = (iv.reduce((a, v) => a + v.len, 0) * 1e6).toFixed(3);
			box.dataset.storms = String(storms);
			box.dataset.into = String(ticks.length);
		}
	}

	/* ---- mirror sessions ---- */

	/* The GRE tunnels and ERSPAN sessions the frames came through (rd-summary's mirror block): per
	 * session its outer addresses, session id or GRE key, frames, and the gaps in its own sequence
	 * numbers with the frames they lost (lost by the mirror or on the way to the collector, not by
	 * the network). Only when the capture has mirror sessions. */
	function mirrorSessions(main, sum) {
		const m = sum.mirror;
		if (!m || !m.sessions.length) return;
		const id = s => (s.session_id !== undefined ? 'session ' + s.session_id : s.gre_key !== undefined ? 'key ' + s.gre_key : '-');
		const seq = (s, v) => (s.sequenced ? num(v) : { class: 'n', text: '-' });
		const rows = m.sessions.map(s => [{ class: 'mono', text: s.kind }, { class: 'mono', text: s.src + ' > ' + s.dst }, id(s), num(s.frames),
			s.sequenced && s.gaps ? { class: 'n sev-warn', text: fmtInt(s.gaps) } : seq(s, s.gaps), s.sequenced && s.lost ? { class: 'n sev-warn', text: fmtInt(s.lost) } : seq(s, s.lost),
			seq(s, s.reordered), seq(s, s.late), seq(s, s.lost_psns)]);
		const sec = el('section', { id: 'rd-mirror' }, el('h2', { text: 'Mirror sessions' }),
			el('p', { class: 'note', text: 'Frames the mirror, or the path from it to the collector, lost: gaps in each session\'s own sequence numbers (ERSPAN II/III, GRE with sequence numbers; "-": the session has none). ' +
				'Not the network\'s loss: the PSN gaps they account for are counted lost at the mirror.' +
				(m.upper_bound ? ' An upper bound: a filter was applied.' : '') }),
			table(['mirror', 'outer source > destination', 'session', { class: 'n', text: 'frames' }, { class: 'n', text: 'gaps', title: 'mirror.gap events' },
				{ class: 'n', text: 'lost', title: 'sequence numbers skipped, less the late frames taken back' },
				{ class: 'n', text: 'reordered', title: 'skipped frames that came late' }, { class: 'n', text: 'late', title: 'other frames below the expected number: duplicates, or too late' },
				{ class: 'n', text: 'lost PSNs', title: 'PSNs of psn.gap events counted lost at this mirror' }], rows, 'mirror'));
		if (m.untracked) sec.append(el('p', { class: 'note', text: fmtInt(m.untracked) + ' frames of sessions past the first 256 not followed.' }));
		main.append(sec);
	}

	/* ---- paths across capture points ---- */

	/* The path analysis's hops (rd-summary's path block, docs/path.md): per hop from one capture
	 * point to the next, the packets seen at either end, lost between them, missed by the to
	 * point's mirror, reordered, the delays (ns, less the clock offset) and the offset with its
	 * uncertainty. Only when the capture has two points or more. */
	function pathHops(main, sum, rep) {
		const p = sum.path;
		if (!p || !p.hops.length) return;
		const name = i => (p.points.find(pt => pt.point === i) || { name: String(i) }).name;
		const d = (h, k) => num(h.delay_ns ? h.delay_ns[k] : null);
		const rows = p.hops.map(h => [{ class: 'mono', text: name(h.from) }, { class: 'mono', text: name(h.to) }, num(h.seen_from), num(h.seen_to),
			h.lost ? { class: 'n sev-warn', text: fmtInt(h.lost) } : num(h.lost), num(h.mirror_lost), num(h.reordered),
			d(h, 'min'), d(h, 'p50'), d(h, 'p99'), d(h, 'max'), num(h.offset_source === 'none' ? null : h.offset_ns), num(h.offset_uncertainty_ns), h.offset_source]);
		main.append(el('section', { id: 'rd-path' }, el('h2', { text: 'Paths' }),
			el('p', { class: 'note', text: 'Each hop from one capture point to the next on its streams\' paths: packets seen at from never seen at to nor after it were lost between the two; ' +
				'those seen past to were missed by to\'s mirror. Delays are to\'s time less from\'s, less the clock offset (to\'s clock minus from\'s), in ns.' }),
			table(['from', 'to', { class: 'n', text: 'seen at from' }, { class: 'n', text: 'seen at to' }, { class: 'n', text: 'lost' }, { class: 'n', text: 'mirror lost' },
				{ class: 'n', text: 'reordered' }, { class: 'n', text: 'delay min' }, { class: 'n', text: 'p50' }, { class: 'n', text: 'p99' }, { class: 'n', text: 'max' },
				{ class: 'n', text: 'clock offset' }, { class: 'n', text: '±' }, 'offset'], rows, 'path')));
		if (rep.hops && rep.hops.list.length) hopPlots(document.getElementById('rd-path'), rep, p.hops, name);
	}

	/* Each hop's delay and loss per timeline bin (rd-report's hops): the delay's p50 (line), p99
	 * (dashed) and max (dots) on a log scale, the packets lost between the two points as bars. */
	function hopPlots(sec, rep, hops, name) {
		const h = rep.hops, tl = rep.timeline;
		const sum = a => a.reduce((x, v) => x + v, 0);
		/* a packet counts on its stream's path as known when it was folded: the table's path when
		 * the stream's path did not change over the capture */
		const moved = h.list.filter(x => hops.some(t => t.from === x.from && t.to === x.to && (t.lost !== sum(x.lost) || t.delays !== sum(x.n))));
		const ax = binAxis({ t0: tl.t0, width: tl.width, n: h.n });
		const xs = [];
		for (let i = 0; i < ax.n; i++) xs.push(ax.x(i));
		const label = x => name(x.from) + ' → ' + name(x.to);
		const us = v => (v === null || v === undefined ? null : Math.max(v, 1) / 1000);  /* 0 on the log scale: 1 ns */
		const series = [], data = [xs];
		h.list.forEach((x, k) => {
			const c = HOP_COLORS[k % HOP_COLORS.length];
			series.push(Object.assign(lineSeries(label(x) + ' p50', c), { spanGaps: false }),
				Object.assign(lineSeries(label(x) + ' p99', c), { dash: [4, 4], width: 1, spanGaps: false }),
				pointSeries(label(x) + ' max', c, 5));
			for (const col of ['p50', 'p99', 'max']) data.push(x[col].slice(0, ax.n).map(us));
		});
		sec.append(el('h3', { text: 'Delay and loss per hop over time' }));
		plot(sec, 'hop-delay', undefined, 'Delay per hop per ' + fmtUs(tl.width) + ' bin: p50, p99, max', 'time since the first frame', 'µs (log)', series, data,
			{ scales: { x: { time: false, range: (u, lo, hi) => [xs[0], xs[xs.length - 1] + ax.w] }, y: { distr: 3, log: 10 } } });
		const bars = uPlot.paths.bars({ size: [0.8, Infinity], align: 1 });
		const loss = plot(sec, 'hop-loss', undefined, 'Packets lost per hop per ' + fmtUs(tl.width) + ' bin', 'time since the first frame', 'packets',
			h.list.map((x, k) => ({ label: label(x), stroke: HOP_COLORS[k % HOP_COLORS.length], fill: HOP_COLORS[k % HOP_COLORS.length] + '88', paths: bars, points: { show: false } })),
			[xs].concat(h.list.map(x => x.lost.slice(0, ax.n))),
			{ scales: { x: { time: false, range: (u, lo, hi) => [xs[0], xs[xs.length - 1] + ax.w] } } });
		loss.dataset.lost = String(sum(h.list.map(x => sum(x.lost.slice(0, ax.n)))));
		sec.append(el('p', { class: 'note', id: 'rd-hop-note', text: 'Each hop, its streams together, per bin of the event timeline (a packet in the bin of its time at from): ' +
			'the delay is to\'s time less from\'s, less the clock offset, as in the table (p50 and p99 within 6.25 % of their distance from the hop\'s first delay; min and max exact). ' +
			'The hop\'s minimum is its base delay (wire, switch); what lies above it is queueing plus the clock offset\'s error. ' +
			'Lost: seen at from, never at to nor after it.' +
			(moved.length ? ' Some streams\' paths changed during the capture (a point seen late, or the order of the points): the bins of ' +
				moved.map(x => name(x.from) + ' → ' + name(x.to)).join(', ') + ' count packets on the path as it was known then, and differ from the table.' : '') + (h.left_out ? ' Only the first ' + h.max_hops + ' hops are drawn: ' + fmtInt(h.left_out) + ' packets\' shares of further hops are not.' : '') }));
	}

	/* ---- queue pairs ---- */

	function endpoint(row) {
		return row.src + ' > ' + row.dst + ' qp 0x' + row.dqpn.toString(16).padStart(6, '0');
	}

	function pairsTable(main, streams, rep) {
		const sec = el('section', { id: 'rd-pairs-section' }, el('h2', { text: 'Queue pairs by trouble' }),
			el('p', { class: 'note', text: 'Sorted by error events, then warnings, then retransmissions, then bytes. ' +
				'The first ' + rep.options.plots + ' have plots (--report-plots): click a row to open them.' }));
		main.append(sec);
		const rows = streams.rows;
		const t = el('table', { id: 'rd-pairs' });
		const heads = [['#', 'rank by trouble'], ['pair', 'pair id, as --summary'], ['streams (source > destination QP)', ''], ['tr', 'transport of each direction\'s requests'],
			['pkts', 'packets'], ['bytes', 'bytes'], ['err', 'error events'], ['warn', 'warning events'], ['retx', 'retransmissions'], ['gaps', 'PSN gaps'],
			['tmo', 'timeout resends'], ['NAKs', 'NAKs and RNR NAKs'], ['lost before / after capture', 'requests lost before the capture point (never seen) / after it (seen, then NAKed or timed out)'],
			['copies', 'frames seen twice (another interface or mirror point): in no other count'], ['resp. p50/p99 µs', 'response time (request to its response at the capture point)']];
		t.append(el('tr', {}, ...heads.map(([h, title], i) => el('th', { class: i >= 4 || i === 1 ? 'n' : '', text: h, title: title || h }))));
		sec.append(t);
		const opened = [];
		const addRow = p => {
			const rs = p.rows.map(i => rows[i]);
			const sumOf = f => rs.reduce((a, r) => a + f(r), 0);
			const naks = sumOf(r => Object.values(r.naks).reduce((a, b) => a + b, 0) + r.rnr_naks);
			const rtt = rs.filter(r => r.response_time_us).map(r => r.response_time_us.p50 + '/' + r.response_time_us.p99).join(', ') || '-';
			const tr = el('tr', { class: 'pair', 'data-pair': String(p.pair) },
				el('td', { class: 'n', text: String(p.rank + 1) }), el('td', { class: 'n', text: String(p.pair_id) }),
				el('td', { class: 'mono' }, ...rs.map((r, k) => el('div', { text: (k ? '< ' : '') + endpoint(r) }))),
				el('td', { text: rs.map(r => r.transport || '-').join('/') }),
				el('td', num(p.rows.length ? sumOf(r => r.packets) : 0)), el('td', { class: 'n', text: fmtBytes(p.bytes) }),
				el('td', { class: p.errors ? 'n sev-error' : 'n', text: fmtInt(p.errors) }),
				el('td', { class: p.warnings ? 'n sev-warn' : 'n', text: fmtInt(p.warnings) }),
				el('td', num(p.retransmits)), el('td', num(sumOf(r => r.gaps))), el('td', num(sumOf(r => r.timeouts))),
				el('td', num(naks)),
				el('td', { class: 'n', text: fmtInt(sumOf(r => r.lost_before_capture)) + ' / ' + fmtInt(sumOf(r => r.lost_after_capture)) }),
				el('td', num(sumOf(r => r.copies))), el('td', { class: 'n', text: rtt }));
			t.append(tr);
			let detail = null;
			const open = () => {
				if (detail) { detail.hidden = !detail.hidden; tr.classList.toggle('open', !detail.hidden); return; }
				detail = el('tr', { class: 'detail' });
				const td = el('td', { colspan: '15' });
				detail.append(td);
				tr.after(detail);
				tr.classList.add('open');
				if (p.plotted) pairPlots(td, p, rows, rep);
				else td.append(el('p', { class: 'note', text: 'No plots for this pair: raise --report-plots to include it.' }));
			};
			tr.addEventListener('click', open);
			if (p.plotted) opened.push(open);
		};
		/* rows a page at a time: a table of thousands of rows takes seconds to lay out */
		let shown = 0;
		const more = el('button', { type: 'button', id: 'rd-more' });
		const showMore = () => {
			const end = Math.min(rep.pairs.length, Math.max(shown + TABLE_PAGE, rep.options.plots));
			for (; shown < end; shown++) addRow(rep.pairs[shown]);
			more.textContent = 'Show ' + Math.min(TABLE_PAGE, rep.pairs.length - shown) + ' more of the ' + fmtInt(rep.pairs.length - shown) + ' pairs not shown';
			more.hidden = shown >= rep.pairs.length;
		};
		more.addEventListener('click', showMore);
		showMore();
		sec.append(more);
		if (!rep.pairs.length) sec.append(el('p', { class: 'note', text: 'No queue pairs: no RoCE transport traffic in this capture.' }));
		const all = location.hash === '#all';
		opened.slice(0, all ? opened.length : 1).forEach(f => f());
	}

	/* One pair: for each of its streams that sends requests, that direction's plots. */
	function pairPlots(td, p, rows, rep) {
		const dirs = p.rows.filter(i => rows[i].requests > 0);
		if (!dirs.length) dirs.push(p.rows[0]);
		for (const i of dirs) {
			const other = p.rows.find(j => j !== i);
			const row = rows[i];
			td.append(el('h3', { class: 'mono', text: endpoint(row) + (row.transport ? ' (' + row.transport + ')' : '') }));
			const facts = [];
			facts.push('pair ' + row.pair + ', stream ' + row.stream + ': ' + fmtInt(row.packets) + ' packets, lost before the capture point ' + fmtInt(row.lost_before_capture) +
				', after it ' + fmtInt(row.lost_after_capture) + (row.copies ? ', copies ' + fmtInt(row.copies) + ' (not counted)' : ''));
			if (row.response_time_us) facts.push('response time µs: min ' + row.response_time_us.min + ', p50 ' + row.response_time_us.p50 + ', p99 ' + row.response_time_us.p99 + ', max ' + row.response_time_us.max + ' (' + fmtInt(row.response_time_us.count) + ')');
			if (row.nak_recovery_us) facts.push('NAK→recovery: ' + fmtInt(row.nak_recovery_us.count) + ', mean ' + fmtUs(row.nak_recovery_us.mean) + ', max ' + fmtUs(row.nak_recovery_us.max));
			if (row.timeout_age_us) facts.push('timeouts aged: ' + fmtInt(row.timeout_age_us.count) + ', mean ' + fmtUs(row.timeout_age_us.mean) + ', max ' + fmtUs(row.timeout_age_us.max));
			if (facts.length) td.append(el('p', { class: 'note', text: facts.join('; ') }));
			const mine = rep.series[i], theirs = other !== undefined ? rep.series[other] : null;
			if (!mine || mine.mode === 'none') {
				td.append(el('p', { class: 'note', text: 'No series: ' + (mine ? mine.reason : 'none') + '.' }));
				continue;
			}
			directionPlots(td, i, mine, theirs, rows, other);
		}
	}

	/* The requests of one stream (mine) and the responses to them (on theirs). */
	function directionPlots(td, row, mine, theirs, rows, other) {
		let req = [], resp = [];
		const binned = mine.mode === 'bins' || (theirs && theirs.mode === 'bins');
		const take = (s, wantReq) => {
			if (!s || s.mode === 'none') return;
			const pts = s.mode === 'exact' ? points(s.points) : points(s.marks);
			for (const q of pts) if ((q.kind === RK.REQ) === wantReq) (wantReq ? req : resp).push(q);
		};
		take(mine, true);
		take(theirs, false);
		/* PSN-time */
		const L = { req: [], retx: [], ooo: [], tmo: [], ack: [], nak: [], rnr: [], rresp: [], rretx: [] };
		const copies = req.filter(q => q.flags & RF.COPY).concat(resp.filter(q => q.flags & RF.COPY));
		req = req.filter(q => !(q.flags & RF.COPY));
		resp = resp.filter(q => !(q.flags & RF.COPY));
		for (const q of req) {
			if (q.flags & RF.TMO) L.tmo.push([q.t, q.psn]);
			else if (q.flags & RF.RETX) L.retx.push([q.t, q.psn]);
			else if (q.flags & RF.OOO) L.ooo.push([q.t, q.psn]);
			else L.req.push([q.t, q.psn]);
		}
		for (const q of resp) {
			if (q.kind === RK.NAK) L.nak.push([q.t, q.psn]);
			else if (q.kind === RK.RNR) L.rnr.push([q.t, q.psn]);
			else if (q.kind === RK.RRESP) ((q.flags & RF.RETX) ? L.rretx : L.rresp).push([q.t, q.psn]);
			else L.ack.push([q.t, q.psn]);
		}
		const series = [
			pointSeries('request', COLOR.req, 4), pointSeries('retransmission', COLOR.retx, 7), pointSeries('out of order', COLOR.ooo, 6),
			pointSeries('timeout resend', COLOR.tmo, 9), lineSeries('ACKed PSN', COLOR.ack, true), pointSeries('NAK', COLOR.nakm, 10),
			pointSeries('RNR NAK', COLOR.rnr, 9), pointSeries('READ response', COLOR.rresp, 3),
			pointSeries('READ response resent', COLOR.rretx, 6),
			Object.assign(pointSeries('copy (not counted)', COLOR.copy, 8), { points: { show: true, size: 8, stroke: COLOR.copy, fill: '#fff', width: 1.5 } }),
		];
		const lists = [L.req, L.retx, L.ooo, L.tmo, L.ack, L.nak, L.rnr, L.rresp, L.rretx, copies.map(q => [q.t, q.psn])];
		if (binned) {
			/* bins: the requests' and READ responses' PSN range per bin as lines, the ACKed PSN */
			const add = (s, f) => { if (s && s.mode === 'bins') { const ax = binAxis(s); for (let b = 0; b < ax.n; b++) f(s, b, ax.x(b + 0.5)); } };
			const lo = [], hi = [], rlo = [], rhi = [];
			L.ack.length = 0;
			add(mine, (s, b, x) => { if (s.psn_lo[b] !== null) { lo.push([x, s.psn_lo[b]]); hi.push([x, s.psn_hi[b]]); } });
			add(theirs, (s, b, x) => {
				if (s.ack_hi[b] !== null) L.ack.push([x, s.ack_hi[b]]);
				if (s.rr_lo[b] !== null) { rlo.push([x, s.rr_lo[b]]); rhi.push([x, s.rr_hi[b]]); }
			});
			if (mine.mode === 'exact') for (const q of req) lo.push([q.t, q.psn]);
			if (theirs && theirs.mode === 'exact') for (const q of resp) if (q.kind !== RK.NAK && q.kind !== RK.RNR && q.kind !== RK.RRESP) L.ack.push([q.t, q.psn]);
			L.ack.sort((a, b) => a[0] - b[0]);
			series.push(lineSeries('request PSNs, lowest per bin', COLOR.req), lineSeries('request PSNs, highest per bin', '#7fa7d6'),
				lineSeries('READ responses, lowest per bin', COLOR.rresp), lineSeries('READ responses, highest per bin', '#8fdbe3'));
			lists.push(lo, hi, rlo, rhi);
			L.req.length = 0;
		}
		const psnBox = plot(td, 'psn', row, 'PSN over time' + (binned ? ' (binned: ranges per bin, resends and NAKs exact)' : ''),
			'time since the first frame', 'PSN (unwrapped)', series, aligned(lists));
		psnBox.dataset.requests = String(req.length);
		psnBox.dataset.retransmissions = String(req.filter(q => q.flags & RF.RETX).length);
		psnBox.dataset.mode = binned ? 'bins' : 'exact';
		psnBox.dataset.copies = String(copies.length);
		ratePlot(td, row, mine, theirs, req, resp);
		responsePlots(td, row, resp, theirs);
		recoveryPlot(td, row, req);
		congestionPlot(td, row, mine, theirs, rows, other);
	}

	/* A stream's congestion outcomes (its CE marks' CNPs and missed CNPs) as [t, count] lists. */
	function congOf(s) {
		const out = { cnp: [], missed: [], unexpected: 0 };
		const c = s && s.cong;
		if (!c) return out;
		if (c.mode === 'bins') {
			const ax = binAxis(c);
			for (let b = 0; b < ax.n; b++) {
				const x = ax.x(b + 0.5);
				if (c.cnp[b]) out.cnp.push([x, c.cnp[b]]);
				if (c.missed[b]) out.missed.push([x, c.missed[b]]);
			}
		} else {
			for (const q of points(c.points)) {
				if (q.kind === RK.CNP) out.cnp.push([q.t, 1]);
				else if (q.kind === RK.CE_MISSED) out.missed.push([q.t, 1]);
				if (q.flags & RF.UNEXPECTED) out.unexpected++;
			}
		}
		return out;
	}

	/* CE marks, the CNPs answering them and the marks whose CNP never came, per time bin, both
	 * directions of the pair; then the CE->CNP latencies' distribution. */
	function congestionPlot(td, row, mine, theirs, rows, other) {
		const ceOf = s => {
			if (!s || s.mode === 'none') return [];
			if (s.mode === 'bins') {
				const out = [];
				const ax = binAxis(s);
				for (let b = 0; b < ax.n; b++) if (s.ce[b]) out.push([ax.x(b + 0.5), s.ce[b]]);
				return out;
			}
			return points(s.points).filter(q => (q.flags & RF.CE) && !(q.flags & RF.COPY)).map(q => [q.t, 1]);
		};
		const a = ceOf(mine), b = ceOf(theirs), ca = congOf(mine), cb = congOf(theirs);
		const lists = [a, b, ca.cnp, cb.cnp, ca.missed.concat(cb.missed)];
		const total = l => l.reduce((x, [, c]) => x + c, 0);
		if (!lists.some(l => l.length)) return;
		/* one scale of bins over all */
		let t0 = Infinity, t1 = -Infinity;
		for (const l of lists) for (const [t] of l) { t0 = Math.min(t0, t); t1 = Math.max(t1, t); }
		const n = Math.max(1, Math.min(100, lists.reduce((x, l) => x + l.length, 0))), w = binWidth(t0, t1, n);
		const xs = Array.from({ length: n }, (_, i) => t0 + i * w);
		const bin = t => Math.min(n - 1, Math.floor((t - t0) / w));
		const ys = lists.map(l => { const y = new Array(n).fill(0); for (const [t, c] of l) y[bin(t)] += c; return y; });
		const box = plot(td, 'congestion', row, 'CE marks, CNPs and CNPs missing per ' + fmtUs(Math.round(w * 1e6)) + ' bin', 'time since the first frame', 'frames',
			[lineSeries('CE marks, this direction', COLOR.ce), lineSeries('CE marks, the other direction', COLOR.ce2),
				lineSeries('CNPs answering this direction', COLOR.cnp), lineSeries('CNPs answering the other', '#98df8a'),
				pointSeries('CE marks left without a CNP', COLOR.missed, 8)],
			[xs].concat(ys.slice(0, 4)).concat([ys[4].map(v => v || null)]));
		box.dataset.points = String(total(a) + total(b));
		box.dataset.cnps = String(total(ca.cnp) + total(cb.cnp));
		box.dataset.missed = String(total(lists[4]));
		/* the latencies: exact ones as a histogram like the stream's own (half-octave) */
		const hists = [mine, theirs].map(s => (s && s.cong ? s.cong.lat_hist : []));
		const n_lat = hists.reduce((x, h) => x + h.reduce((y, e) => y + e[2], 0), 0);
		if (!n_lat) return;
		const keys = [...new Set(hists.flat().map(h => h[0]))].sort((p, q) => p - q);
		const xl = keys.map(k => Math.max(k, 0.5) * Math.SQRT2 ** 0.5);
		const yl = hists.map(h => keys.map(k => { const e = h.find(x => x[0] === k); return e ? e[2] : null; }));
		const facts = [row, other].filter(i => i !== undefined && rows[i].congestion && rows[i].congestion.ce_to_cnp_ns)
			.map(i => { const c = rows[i].congestion.ce_to_cnp_ns; return rows[i].src + ' > ' + rows[i].dst + ': p50 ' + fmtUs(c.p50 / 1e3) + ', p99 ' + fmtUs(c.p99 / 1e3) + ', max ' + fmtUs(c.max / 1e3); });
		const lb = plot(td, 'cnp-latency', row, 'CE mark → CNP latency (half-octave bins)' + (facts.length ? ': ' + facts.join('; ') : ''), 'µs (log)', 'CNPs',
			[{ label: 'this direction\'s marks', stroke: COLOR.cnp, fill: COLOR.cnp + '88', paths: uPlot.paths.bars({ size: [0.4, 30], align: -1 }), points: { show: false } },
				{ label: 'the other direction\'s', stroke: COLOR.ce2, fill: COLOR.ce2 + '88', paths: uPlot.paths.bars({ size: [0.4, 30], align: 1 }), points: { show: false } }],
			[xl, yl[0], yl[1]], { scales: { x: { time: false, distr: 3 }, y: { range: (u, lo, hi) => [0, Math.max(1, hi) * 1.1] } } });
		lb.dataset.points = String(n_lat);
	}

	/* Throughput and message rate over time. */
	function ratePlot(td, row, mine, theirs, req, resp) {
		let xs = [], reqB = [], respB = [], msgs = [];
		if (mine.mode === 'bins') {
			const ax = binAxis(mine), w = ax.w;
			for (let b = 0; b < ax.n; b++) {
				xs.push(ax.x(b));
				reqB.push(mine.bytes[b] / w);
				msgs.push(mine.msgs[b] / w);
			}
			respB = null;
		} else {
			const all = req.concat(resp);
			if (all.length) {
				let t0 = Infinity, t1 = -Infinity;
				for (const q of all) { t0 = Math.min(t0, q.t); t1 = Math.max(t1, q.t); }
				const n = Math.max(1, Math.min(200, Math.ceil(all.length / 4)));
				const w = binWidth(t0, t1, n);
				xs = Array.from({ length: n }, (_, i) => t0 + i * w);
				reqB = new Array(n).fill(0); respB = new Array(n).fill(0); msgs = new Array(n).fill(0);
				const bin = t => Math.min(n - 1, Math.floor((t - t0) / w));
				for (const q of req) { const b = bin(q.t); reqB[b] += q.len / w; if (q.flags & RF.END) msgs[b] += 1 / w; }
				for (const q of resp) respB[bin(q.t)] += q.len / w;
			}
		}
		const series = [lineSeries('request bytes/s', COLOR.bytes)];
		const data = [xs, reqB];
		if (respB) { series.push(lineSeries('response bytes/s', COLOR.rresp)); data.push(respB); }
		series.push(Object.assign(lineSeries('messages/s', COLOR.msgs), { scale: 'msgs' }));
		data.push(msgs);
		plot(td, 'rate', row, 'Throughput and message rate', 'time since the first frame', 'bytes/s', series, data, {
			axes: [{ label: 'time since the first frame' }, { label: 'bytes/s', size: 80 }, { label: 'messages/s', scale: 'msgs', side: 1, size: 70, grid: { show: false } }],
		});
	}

	/* Response time (request → its response, at the capture point) over time and as a distribution. */
	function responsePlots(td, row, resp, theirs) {
		let rt, xs, ys, drawn;
		if (theirs && theirs.mode === 'bins') {
			/* binned: the least, mean and largest per bin; the stream's histogram */
			const bx = [], mn = [], me = [], mx = [];
			const ax = binAxis(theirs);
			for (let b = 0; b < ax.n; b++) {
				bx.push(ax.x(b + 0.5));
				mn.push(theirs.rt_min[b]); me.push(theirs.rt_mean[b]); mx.push(theirs.rt_max[b]);
			}
			drawn = theirs.rt_n.reduce((a, b) => a + b, 0);
			const box = plot(td, 'response', row, 'Response time (request → response) per ' + fmtUs(theirs.width) + ' bin', 'time since the first frame', 'µs',
				[lineSeries('largest', COLOR.retx), lineSeries('mean', COLOR.req), lineSeries('least', COLOR.ack)], [bx, mx, me, mn]);
			box.dataset.points = String(drawn);
			xs = theirs.rt_hist.map(h => Math.max(h[0], 0.5) * Math.SQRT2 ** 0.5);
			ys = theirs.rt_hist.map(h => h[2]);
		} else {
			rt = resp.filter(q => q.val !== null).map(q => [q.t, q.val]);
			drawn = rt.length;
			plot(td, 'response', row, 'Response time (request → response) over time', 'time since the first frame', 'µs',
				[pointSeries('response time', COLOR.req, 6)], aligned([rt]));
			/* distribution: half-octave bins, log scale */
			const counts = new Map();
			for (const [, v] of rt) { const b = v > 0 ? Math.floor(2 * Math.log2(v)) : -1; counts.set(b, (counts.get(b) || 0) + 1); }
			const keys = [...counts.keys()].sort((a, b) => a - b);
			xs = keys.map(b => (b < 0 ? 0 : Math.pow(2, b / 2)));
			ys = keys.map(b => counts.get(b));
		}
		const box = plot(td, 'response-dist', row, 'Response time distribution (half-octave bins)', 'µs (log)', 'responses',
			[{ label: 'responses', stroke: COLOR.req, fill: COLOR.req + '88', paths: uPlot.paths.bars({ size: [0.8, 40] }), points: { show: false } }],
			[xs, ys], { scales: { x: { time: false, distr: xs.length && xs[0] > 0 ? 3 : 1 }, y: { range: (u, lo, hi) => [0, Math.max(1, hi) * 1.1] } } });
		box.dataset.points = String(drawn);
	}

	/* NAK → recovery times and the ages of timed-out PSNs. */
	function recoveryPlot(td, row, req) {
		const rec = req.filter(q => (q.flags & RF.RECOVER) && q.val !== null).map(q => [q.t, q.val]);
		const tmo = req.filter(q => (q.flags & RF.TMO) && q.val !== null).map(q => [q.t, q.val]);
		plot(td, 'recovery', row, 'NAK → recovery time and timeout ages', 'time since the first frame', 'µs',
			[pointSeries('NAK → resend', COLOR.nak, 8), pointSeries('timeout: age of the resent PSN', COLOR.tmo, 8)], aligned([rec, tmo]));
	}

	function main() {
		const sumDoc = readJSON('rd-summary'), streamsDoc = readJSON('rd-streams'), rep = readJSON('rd-report');
		const mainEl = document.getElementById('rd-main');
		maxBins = rep.options.bins;
		/* each part on its own: one that fails leaves the others (the queue pair table) drawn */
		const failed = [];
		for (const part of [() => timeNote(mainEl, rep), () => overview(mainEl, sumDoc.summary, streamsDoc.streams, rep),
			() => mirrorSessions(mainEl, sumDoc.summary), () => pathHops(mainEl, sumDoc.summary, rep),
			() => congestion(mainEl, sumDoc, streamsDoc.streams, rep), () => pairsTable(mainEl, streamsDoc.streams, rep)]) {
			try {
				part();
			} catch (e) {
				failed.push(e);
				console.error('rocedump report: ' + (e && e.stack || e));
			}
		}
		if (failed.length) {
			document.body.dataset.error = String(failed[0] && failed[0].message || failed[0]);
			return;
		}
		mainEl.append(el('p', { class: 'note', text: 'Written by rocedump ' + rep.version + '. Drag on a plot to zoom, double-click to zoom out. ' +
			'The data of every plot is in this file\'s JSON blocks (rd-summary, rd-streams, rd-report).' }));
		document.body.dataset.ready = '1';
		document.body.dataset.builtMs = String(Math.round(performance.now()));
	}

	try {
		main();
	} catch (e) {
		document.body.dataset.error = String(e && e.message || e);
		console.error('rocedump report: ' + (e && e.stack || e));
	}
})();
