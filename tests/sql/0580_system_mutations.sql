-- system.mutations lists each ALTER ... DELETE/UPDATE with the block number it took, its command and whether it is done; a mutation takes a block number, so the next INSERT's part is numbered after it
CREATE TABLE mutated (id UInt64, v String) ENGINE = MergeTree ORDER BY id;
INSERT INTO mutated SELECT number, toString(number) FROM numbers(1000);
ALTER TABLE mutated DELETE WHERE id < 10 SETTINGS mutations_sync = 1;
ALTER TABLE mutated UPDATE v = 'changed' WHERE id = 100 SETTINGS mutations_sync = 1;
SELECT table, mutation_id, command, parts_to_do, is_done, is_killed, latest_failed_part, latest_fail_reason, parts_to_do_names FROM system.mutations WHERE database = currentDatabase() AND table = 'mutated' ORDER BY mutation_id;
SELECT count(), countIf(v = 'changed') FROM mutated;
INSERT INTO mutated VALUES (5000, 'new');
SELECT min_block_number FROM system.parts WHERE database = currentDatabase() AND table = 'mutated' AND active AND max_block_number = min_block_number ORDER BY min_block_number DESC LIMIT 1;
SELECT count() FROM system.mutations WHERE database = currentDatabase() AND table = 'mutated' AND is_done = 0;
SELECT finish_time >= create_time FROM system.mutations WHERE database = currentDatabase() AND table = 'mutated';
