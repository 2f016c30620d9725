//! The interpreter in-process: statements, errors with ClickHouse codes, persistence of
//! the catalog across a reopen, and all-or-nothing INSERTs.

use std::sync::Arc;

use granary_common::ErrorCode;
use granary_query::{Instance, InstanceConfig, QueryRequest, Session};

async fn run(instance: &Arc<Instance>, session: &mut Session, sql: &str) -> Result<String, granary_common::Error> {
    let mut response = instance.execute(session, QueryRequest::new(sql)).await?;
    let mut out = Vec::new();
    while let Some(chunk) = response.body.recv().await {
        out.extend_from_slice(&chunk?);
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn open(dir: &std::path::Path) -> Arc<Instance> {
    let mut config = InstanceConfig::new(dir);
    config.timezone = "UTC".into();
    Instance::open(config).expect("open instance")
}

#[tokio::test]
async fn ddl_survives_reopen_and_memory_tables_come_back_empty() {
    let dir = tempfile::tempdir().unwrap();
    {
        let instance = open(dir.path());
        let mut s = instance.new_session("default");
        run(&instance, &mut s, "CREATE DATABASE analytics").await.unwrap();
        run(&instance, &mut s, "CREATE TABLE analytics.events (id UInt64, name String) ENGINE = Memory").await.unwrap();
        run(&instance, &mut s, "CREATE TABLE analytics.sink (id UInt64) ENGINE = Null").await.unwrap();
        run(&instance, &mut s, "INSERT INTO analytics.events VALUES (1, 'a'), (2, 'b')").await.unwrap();
        assert_eq!(run(&instance, &mut s, "SELECT count() FROM analytics.events").await.unwrap(), "2\n");
        run(&instance, &mut s, "RENAME TABLE analytics.sink TO analytics.sink2").await.unwrap();
    }
    let instance = open(dir.path());
    let mut s = instance.new_session("default");
    assert_eq!(run(&instance, &mut s, "SHOW TABLES FROM analytics").await.unwrap(), "events\nsink2\n");
    assert_eq!(run(&instance, &mut s, "SELECT count() FROM analytics.events").await.unwrap(), "0\n");
}

#[tokio::test]
async fn errors_carry_clickhouse_codes() {
    let dir = tempfile::tempdir().unwrap();
    let instance = open(dir.path());
    let mut s = instance.new_session("default");
    let cases = [
        ("SELECT * FROM nope", ErrorCode::UNKNOWN_TABLE),
        ("SELECT * FROM nodb.t", ErrorCode::UNKNOWN_DATABASE),
        ("SELEC 1", ErrorCode::SYNTAX_ERROR),
        ("SELECT 1 SETTINGS no_such_setting = 1", ErrorCode::UNKNOWN_SETTING),
        ("SELECT 1 FORMAT NoSuchFormat", ErrorCode::UNKNOWN_FORMAT),
        ("CREATE TABLE t (x UInt8) ENGINE = NoSuchEngine", ErrorCode::UNKNOWN_STORAGE),
        ("CREATE TABLE t (x NoSuchType) ENGINE = Memory", ErrorCode::UNKNOWN_TYPE),
        ("USE nodb", ErrorCode::UNKNOWN_DATABASE),
    ];
    for (sql, code) in cases {
        let error = run(&instance, &mut s, sql).await.expect_err(sql);
        assert_eq!(error.code(), code, "{sql}: {error:?}");
    }
}

#[tokio::test]
async fn failed_insert_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let instance = open(dir.path());
    let mut s = instance.new_session("default");
    run(&instance, &mut s, "CREATE TABLE t (id UInt64, v UInt8) ENGINE = Memory").await.unwrap();
    let bad = "INSERT INTO t FORMAT CSV\n1,1\n2,2\n3,not_a_number\n";
    assert!(run(&instance, &mut s, bad).await.is_err());
    assert_eq!(run(&instance, &mut s, "SELECT count() FROM t").await.unwrap(), "0\n");
    run(&instance, &mut s, "INSERT INTO t FORMAT CSV\n1,1\n2,2\n").await.unwrap();
    assert_eq!(run(&instance, &mut s, "SELECT sum(id) FROM t").await.unwrap(), "3\n");
}

#[tokio::test]
async fn session_state_and_settings() {
    let dir = tempfile::tempdir().unwrap();
    let instance = open(dir.path());
    let mut s = instance.new_session("default");
    run(&instance, &mut s, "CREATE DATABASE d2").await.unwrap();
    run(&instance, &mut s, "USE d2").await.unwrap();
    run(&instance, &mut s, "CREATE TABLE here (x UInt8) ENGINE = Memory").await.unwrap();
    assert_eq!(run(&instance, &mut s, "EXISTS TABLE d2.here").await.unwrap(), "1\n");
    run(&instance, &mut s, "SET max_threads = 3").await.unwrap();
    assert_eq!(run(&instance, &mut s, "SELECT value FROM system.settings WHERE name = 'max_threads'").await.unwrap(), "3\n");
    run(&instance, &mut s, "SET readonly = 1").await.unwrap();
    assert_eq!(run(&instance, &mut s, "DROP TABLE here").await.unwrap_err().code(), ErrorCode::READONLY);
}

#[tokio::test]
async fn limit_by_and_query_log() {
    let dir = tempfile::tempdir().unwrap();
    let instance = open(dir.path());
    let mut s = instance.new_session("default");
    let out = run(&instance, &mut s, "SELECT number % 2 AS k, number FROM numbers(6) ORDER BY k, number LIMIT 2 BY k").await.unwrap();
    assert_eq!(out, "0\t0\n0\t2\n1\t1\n1\t3\n");
    let _ = run(&instance, &mut s, "SELECT * FROM missing_table").await;
    let log = run(&instance, &mut s, "SELECT type, exception_code FROM system.query_log WHERE query LIKE '%missing_table%' AND query NOT LIKE '%query_log%'").await.unwrap();
    assert_eq!(log, "ExceptionBeforeStart\t60\n");
}
