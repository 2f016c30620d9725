-- The Regexp input format: format_regexp, its escaping rule, skipping unmatched lines, schema inference.
SELECT * FROM format(Regexp, 'a String, b UInt32', '1: x 5
2: y 7') SETTINGS format_regexp = '\\d+: (\\w+) (\\d+)';
SELECT * FROM format(Regexp, 'a String, b UInt32', '1: x 5
junk') SETTINGS format_regexp = '\\d+: (\\w+) (\\d+)'; -- { serverError INCORRECT_DATA }
SELECT * FROM format(Regexp, 'a String, b UInt32', '1: x 5
junk') SETTINGS format_regexp = '\\d+: (\\w+) (\\d+)', format_regexp_skip_unmatched=1;
SELECT * FROM format(Regexp, 'a String, b UInt32', '1: x 5 extra') SETTINGS format_regexp = '\\d+: (\\w+) (\\d+)'; -- { serverError INCORRECT_DATA }
SELECT * FROM format(Regexp, 'a String, b Array(UInt8)', '"x y" [1,2]') SETTINGS format_regexp = '(".*") (.*)', format_regexp_escaping_rule='JSON';
SELECT * FROM format(Regexp, 'a String, b Array(UInt8)', 'x y;[1,2]') SETTINGS format_regexp = '(.*);(.*)';
SELECT * FROM format(Regexp, 'a String', 'x'); -- { serverError BAD_ARGUMENTS }
SELECT * FROM format(Regexp, 'x') SETTINGS format_regexp = '(.)';
DESCRIBE format(Regexp, 'x 1') SETTINGS format_regexp = '(.) (.)';
SELECT * FROM format(Regexp, 'a String, b UInt8', 'x 1\r\ny 2\r\n') SETTINGS format_regexp = '(.) (.)';
SELECT * FROM format(Regexp, 'a String, b String', 'xy') SETTINGS format_regexp = '(.)y'; -- { serverError INCORRECT_DATA }
SELECT * FROM format(Regexp, 'a String', 'xy') SETTINGS format_regexp = '(.'; -- { serverError BAD_ARGUMENTS }
SELECT * FROM format(Regexp, 'a Nullable(String), b String', '\\N;\\N') SETTINGS format_regexp = '(.*);(.*)';
SELECT * FROM format(Regexp, 'a String, b UInt8', 'x\\ty;7') SETTINGS format_regexp = '(.*);(.*)', format_regexp_escaping_rule='Escaped';
SELECT * FROM format(Regexp, 'a String, b UInt8', '"x,y";7') SETTINGS format_regexp = '(.*);(.*)', format_regexp_escaping_rule='CSV';
SELECT * FROM format(Regexp, 'a String, b UInt8', 'abc;7') SETTINGS format_regexp = 'a(?:b)(c);(.*)';
SELECT * FROM format(Regexp, 'a String, b UInt8', 'X;7') SETTINGS format_regexp = '(?i)(x);(.*)';
SELECT name, value FROM system.settings WHERE name LIKE 'format_regexp%';
