-- Packets lost before the capture point (upstream: the capture saw the gap) and after it
-- (downstream: the responder asked again for what the capture saw), per box (the switch port it
-- mirrors) and run. Each stream has one row per run: at its eviction or at the run's end.
SELECT box, run_id, sum(lost_before_capture) AS lost_before, sum(lost_after_capture) AS lost_after,
       sum(packets) AS packets
FROM streams
GROUP BY box, run_id
ORDER BY box, run_id
