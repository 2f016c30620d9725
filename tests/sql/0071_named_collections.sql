-- Named collections: DDL, system.named_collections (values hidden), errors of use.
CREATE NAMED COLLECTION nc_0071_a AS url = 'http://127.0.0.1:1/data/', access_key_id = 'key', secret_access_key = 'secret' NOT OVERRIDABLE, format = 'CSV' OVERRIDABLE;
CREATE NAMED COLLECTION nc_0071_b AS x = 1, y = 'two', z = -3.5, w = true;
SELECT name, collection, source, create_query FROM system.named_collections WHERE name LIKE 'nc_0071%' ORDER BY name;
CREATE NAMED COLLECTION nc_0071_a AS a = 1; -- { serverError NAMED_COLLECTION_ALREADY_EXISTS }
CREATE NAMED COLLECTION IF NOT EXISTS nc_0071_a AS a = 1;
ALTER NAMED COLLECTION nc_0071_a SET format = 'TSV', structure = 'a UInt64' NOT OVERRIDABLE DELETE access_key_id;
SELECT collection, create_query FROM system.named_collections WHERE name = 'nc_0071_a';
ALTER NAMED COLLECTION nc_0071_a DELETE nothing; -- { serverError BAD_ARGUMENTS }
ALTER NAMED COLLECTION nc_0071_none SET a = 1; -- { serverError NAMED_COLLECTION_DOESNT_EXIST }
ALTER NAMED COLLECTION IF EXISTS nc_0071_none SET a = 1;
SELECT * FROM s3(nc_0071_a, filename = 'x.csv', secret_access_key = 'other'); -- { serverError BAD_ARGUMENTS }
SELECT * FROM s3(nc_0071_a, filename = 'x.csv', structure = 'b String'); -- { serverError BAD_ARGUMENTS }
SELECT * FROM s3(nc_0071_b); -- { serverError BAD_ARGUMENTS }
SELECT * FROM s3(nc_0071_none, filename = 'x.csv'); -- { serverError NAMED_COLLECTION_DOESNT_EXIST }
SELECT * FROM url(nc_0071_a, filename = 'x.csv'); -- { serverError BAD_ARGUMENTS }
DROP NAMED COLLECTION nc_0071_a;
DROP NAMED COLLECTION nc_0071_b;
DROP NAMED COLLECTION nc_0071_a; -- { serverError NAMED_COLLECTION_DOESNT_EXIST }
DROP NAMED COLLECTION IF EXISTS nc_0071_a;
SELECT count() FROM system.named_collections WHERE name LIKE 'nc_0071%';
