-- schema-cluster.sql: rocedump's tables over a ClickHouse cluster: each shard holds its part of
-- the rows in the tables of schema.sql, in a database of their own (rocedump_local), and the
-- tables of the same names here, in the database the boxes export to (rocedump), are
-- Distributed tables over them: an INSERT spreads the rows over the shards (a whole batch to one
-- shard: the sharding key is the batch id), a SELECT reads every shard.
--
-- On every server of the cluster (its <remote_servers> naming the cluster "rocedump"):
--   CREATE DATABASE rocedump_local;  then schema.sql in it
--   (rocedump --export-schema | clickhouse-client --multiquery -d rocedump_local)
-- then on the servers the boxes send to (any or all of them):
--   CREATE DATABASE rocedump;  then this file in it (clickhouse-client --multiquery -d rocedump)
-- and the boxes export to http://SERVER:8123/rocedump. rocedump checks these tables' columns
-- as it checks schema.sql's (a Distributed table has its local table's columns). It sends with
-- insert_distributed_sync=1: an INSERT answers once the shards hold the rows, so that the look
-- for a batch before it is resent finds a batch sent.
--
-- Replicas: with ZooKeeper, schema.sql's "ENGINE = MergeTree" becomes, in rocedump_local,
--   ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/rocedump/frames', '{replica}')
-- (each table its own path; {shard} and {replica} from each server's <macros>), and the
-- cluster's shards list their replicas with <internal_replication>true</internal_replication>.
-- What it costs: a ZooKeeper ensemble (three servers for it to survive one's loss), a ZooKeeper
-- transaction on every insert (a batch of 10,000 rows a second per table per box is well within
-- it; a row per insert would not be), the disk of every replica, and ZooKeeper's own care
-- (its snapshots and logs). What it gives: a shard survives a server, and a replicated table
-- drops a block it has already taken (the same rows in the same order), so a batch resent after
-- a lost reply is dropped by the server too.

CREATE TABLE IF NOT EXISTS frames AS rocedump_local.frames
    ENGINE = Distributed(rocedump, rocedump_local, frames, cityHash64(batch_id));
CREATE TABLE IF NOT EXISTS findings AS rocedump_local.findings
    ENGINE = Distributed(rocedump, rocedump_local, findings, cityHash64(batch_id));
CREATE TABLE IF NOT EXISTS streams AS rocedump_local.streams
    ENGINE = Distributed(rocedump, rocedump_local, streams, cityHash64(batch_id));
CREATE TABLE IF NOT EXISTS captures AS rocedump_local.captures
    ENGINE = Distributed(rocedump, rocedump_local, captures, cityHash64(batch_id));
