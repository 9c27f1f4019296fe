-- schema.sql: the tables `rocedump --export URL` writes to (ClickHouse 18.16 or later). rocedump
-- creates those that are absent (CREATE TABLE IF NOT EXISTS, in the database of the URL) and
-- refuses a table whose columns differ from these; `rocedump --export-schema` prints this file.
-- Columns are named as in rocedump's JSON output (-T json, --summary). Every row carries the box
-- that captured it, the run (one rocedump run) and the batch it was sent in (run_id:sequence),
-- by which a batch resent after a lost reply is known. One column per line, "name Type,": the
-- build reads the columns from here to check a table's.

-- Frames: those with events (all of them with --export-all-frames).
CREATE TABLE IF NOT EXISTS frames (
    time DateTime,
    time_ns UInt64,
    box String,
    point String,
    run_id String,
    batch_id String,
    frame UInt64,
    src String,
    dst String,
    dqpn UInt32,
    opcode UInt16,
    psn UInt32,
    icrc String,
    ecn UInt8,
    events Array(String),
    findings UInt32,
    ce_frame UInt64,
    ce_to_cnp_ns Int64
) ENGINE = MergeTree PARTITION BY toYYYYMMDD(time) ORDER BY (box, time, frame);

-- Findings: one row per finding of the analyzer (a frame may carry several).
CREATE TABLE IF NOT EXISTS findings (
    time DateTime,
    time_ns UInt64,
    box String,
    point String,
    run_id String,
    batch_id String,
    frame UInt64,
    ref_frame UInt64,
    event String,
    stream UInt32,
    pair UInt32,
    src String,
    dst String,
    qpn UInt32,
    expected_psn UInt32,
    seen_psn UInt32,
    delta_ns Int64,
    priority Int16,
    quanta UInt32,
    lost UInt32
) ENGINE = MergeTree PARTITION BY toYYYYMMDD(time) ORDER BY (box, event, time, frame);

-- Streams: the per-stream summary (--summary), at the end of a run and when the analysis evicts
-- a stream past --max-streams (evicted = 1).
CREATE TABLE IF NOT EXISTS streams (
    snapshot DateTime,
    box String,
    run_id String,
    batch_id String,
    evicted UInt8,
    pair UInt32,
    stream UInt32,
    src String,
    dst String,
    dqpn UInt32,
    paired String,
    peer_qpn UInt32,
    transport String,
    pmtu UInt32,
    packets UInt64,
    bytes UInt64,
    requests UInt64,
    responses UInt64,
    messages UInt64,
    gaps UInt64,
    missing_psns UInt64,
    retransmits UInt64,
    out_of_order UInt64,
    timeouts UInt64,
    lost_before_capture UInt64,
    lost_after_capture UInt64,
    copies UInt64,
    rnr_naks UInt64,
    lost_at_mirror UInt64,
    response_count UInt64,
    response_p50_us UInt32,
    response_p99_us UInt32,
    max_idle_us UInt32,
    ce UInt64,
    cnps UInt64,
    cnp_missing UInt64,
    ce_to_cnp_count UInt64,
    ce_to_cnp_p50_ns Int64,
    ce_to_cnp_p99_ns Int64
) ENGINE = MergeTree PARTITION BY toYYYYMMDD(snapshot) ORDER BY (box, snapshot, src, dst, dqpn);

-- Captures: one row per run, written at its end.
CREATE TABLE IF NOT EXISTS captures (
    start DateTime,
    end DateTime,
    start_ns UInt64,
    end_ns UInt64,
    box String,
    run_id String,
    batch_id String,
    source String,
    frames UInt64,
    bytes UInt64,
    drops UInt64,
    version String
) ENGINE = MergeTree PARTITION BY toYYYYMMDD(start) ORDER BY (box, start, run_id);
