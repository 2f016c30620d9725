-- GraphiteMergeTree needs a rollup section of the server configuration (this server has
-- none): its name, in single quotes, is the one argument.
CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('graphite_rollup') ORDER BY (Path, Time); -- { serverError NO_ELEMENTS_IN_CONFIG }
CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree ORDER BY (Path, Time); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree('a', 'b') ORDER BY (Path, Time); -- { serverError NUMBER_OF_ARGUMENTS_DOESNT_MATCH }
CREATE TABLE g (Path String, Time DateTime, Value Float64, Timestamp UInt32) ENGINE = GraphiteMergeTree(Path) ORDER BY (Path, Time); -- { serverError BAD_ARGUMENTS }
SELECT count() FROM system.graphite_retentions;
SELECT name, type FROM system.columns WHERE database = 'system' AND table = 'graphite_retentions' ORDER BY position;
