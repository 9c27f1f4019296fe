-- The queue pairs that resent most, per box and hour: psn.retransmit and retransmit.timeout
-- findings by destination address and QP, the ten most of each box's hours.
SELECT box, toStartOfHour(time) AS hour, dst, qpn, count() AS retransmits
FROM findings
WHERE event IN ('psn.retransmit', 'retransmit.timeout')
GROUP BY box, hour, dst, qpn
ORDER BY box, hour, retransmits DESC, dst, qpn
LIMIT 10 BY box, hour
