-- The time from a CE mark to the CNP answering it, per box: exact median and 99th percentile,
-- in nanoseconds, over the CNPs' frames (their ce_frame and ce_to_cnp_ns).
SELECT box, count() AS cnps, quantileExact(0.5)(ce_to_cnp_ns) AS p50_ns, quantileExact(0.99)(ce_to_cnp_ns) AS p99_ns
FROM frames
WHERE ce_frame > 0
GROUP BY box
ORDER BY box
