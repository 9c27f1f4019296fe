-- The pause time PFC and PAUSE frames asked for, per box and priority (-1: PAUSE, all traffic):
-- the quanta of their pfc.pause findings, and that in microseconds at 100 Gb/s (a quantum is 512
-- bit times: 5.12 ns at 100 Gb/s; change the divisor for another link speed). A pause cut short
-- by an XON counts in full: an upper bound of the time paused.
SELECT box, priority, count() AS pauses, sum(quanta) AS pause_quanta, pause_quanta * 512 / 100000 AS paused_us
FROM findings
WHERE event = 'pfc.pause'
GROUP BY box, priority
ORDER BY box, priority
