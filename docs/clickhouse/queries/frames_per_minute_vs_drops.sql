-- Frames per minute against the capture's drops (kernel and interface), per box and run: the
-- frames table holds every frame only with --export-all-frames; the drops are the run's total.
SELECT box, run_id, minute, frames, drops
FROM
(
    SELECT box, run_id, toStartOfMinute(time) AS minute, count() AS frames
    FROM frames
    GROUP BY box, run_id, minute
)
ANY LEFT JOIN
(
    SELECT run_id, drops FROM captures
) USING run_id
ORDER BY box, run_id, minute
