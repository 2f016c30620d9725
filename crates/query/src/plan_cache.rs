//! Reuse of physical plans across executions of the same query text.
//!
//! Planning a query through DataFusion (SQL to logical plan, the analyzer and optimizer
//! passes, physical planning and its optimizer) costs far more than running a small
//! query: for `SELECT 1` it was about half of the server's CPU time per request. A
//! query whose plan cannot change between executions is planned once and its physical
//! plan kept, keyed by everything planning depends on: the text (with parameters
//! substituted), the current database, the user and the changed settings.
//!
//! A plan is reusable only when its result depends on nothing but that key:
//! - it reads no stored data (no table, system table, file, dictionary; `numbers()`
//!   and literal rows are allowed), so no catalog, part set or file can change under it;
//! - it calls no *stable* function: those (`now()`, `today()`, `dictGet`, ...) are
//!   folded into constants at planning time, once per query.
//!
//! Volatile functions (`rand()`) are evaluated at execution and are fine; plans whose
//! operators keep dynamic filters that a reset does not renew are not kept. Each
//! execution gets a copy of the plan with its operators' run state reset
//! ([`reset_plan_states`]); per-query state (progress, memory pool, settings) comes from
//! the task context, as for any plan.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::common::tree_node::{TreeNode, TreeNodeRecursion};
use datafusion::logical_expr::{Expr, LogicalPlan, Volatility};
use datafusion::physical_plan::execution_plan::reset_plan_states;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::sorts::sort::SortExec;
use datafusion::physical_plan::ExecutionPlan;
use granary_common::metrics::Event;
use parking_lot::Mutex;

use crate::instance::QueryContext;

/// Plans kept at most; a full cache evicts the least recently used.
const CAPACITY: usize = 1024;
/// Longer query texts are not cached (they are rarely repeated and would make the
/// cache's memory depend on query size).
const MAX_KEY_BYTES: usize = 16 * 1024;

#[derive(Default)]
pub(crate) struct PlanCache {
    inner: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    plans: HashMap<String, (Arc<dyn ExecutionPlan>, u64)>,
    /// Increases on every use; an entry's stamp says when it was last used.
    clock: u64,
}

impl PlanCache {
    /// The cache key of a query, or `None` when it must be planned every time.
    pub(crate) fn key(ctx: &QueryContext, text: &str) -> Option<String> {
        // Rights can change between executions (REVOKE); restricted users are checked
        // on every planning instead.
        if !ctx.access.is_unrestricted() || text.len() > MAX_KEY_BYTES {
            return None;
        }
        let mut key = String::with_capacity(text.len() + 64);
        for part in [text, &ctx.current_database, &ctx.access.user] {
            key.push_str(part);
            key.push('\0');
        }
        for (name, value) in ctx.settings.changed() {
            key.push_str(name);
            key.push('=');
            key.push_str(value);
            key.push('\0');
        }
        Some(key)
    }

    /// A fresh copy of the cached plan for `key`, ready to execute.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<dyn ExecutionPlan>> {
        let plan = {
            let mut entries = self.inner.lock();
            entries.clock += 1;
            let now = entries.clock;
            let (plan, used) = entries.plans.get_mut(key)?;
            *used = now;
            plan.clone()
        };
        // A plan that cannot be reset is simply planned again.
        let plan = reset_plan_states(plan).ok()?;
        Event::QueryPlanCacheHits.add(1);
        Some(plan)
    }

    /// Keeps `plan` (which the caller goes on to execute) for later executions of `key`.
    pub(crate) fn insert(&self, key: String, plan: &Arc<dyn ExecutionPlan>) {
        if shares_state_across_executions(plan) {
            return;
        }
        // The cached copy must not share run state with the execution under way.
        let Ok(pristine) = reset_plan_states(plan.clone()) else { return };
        Event::QueryPlanCacheMisses.add(1);
        let mut entries = self.inner.lock();
        if entries.plans.len() >= CAPACITY {
            if let Some(oldest) = entries.plans.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone()) {
                entries.plans.remove(&oldest);
            }
        }
        entries.clock += 1;
        let now = entries.clock;
        entries.plans.insert(key, (pristine, now));
    }

    pub(crate) fn clear(&self) {
        self.inner.lock().plans.clear();
    }

    pub(crate) fn len(&self) -> usize {
        self.inner.lock().plans.len()
    }
}

/// Whether some operator of `plan` keeps run state that resetting does not renew:
/// dynamic filters, except in the operators whose `reset_state` makes new ones (an
/// aggregate's min/max filter, for one, would be shared by every execution).
fn shares_state_across_executions(plan: &Arc<dyn ExecutionPlan>) -> bool {
    let mut shared = false;
    let _ = plan.apply(|node| {
        let operator: &dyn std::any::Any = node.as_ref();
        let renews_them = operator.is::<SortExec>() || operator.is::<HashJoinExec>();
        shared = !renews_them && !node.dynamic_expressions_produced().is_empty();
        Ok(if shared { TreeNodeRecursion::Stop } else { TreeNodeRecursion::Continue })
    });
    shared
}

/// Whether the physical plan of `plan` (unoptimized, as SQL planning made it) may be
/// reused: see the module documentation.
pub(crate) fn is_reusable(plan: &LogicalPlan) -> bool {
    let mut reusable = true;
    let _ = plan.apply_with_subqueries(|node| {
        reusable = match node {
            LogicalPlan::TableScan(scan) => reads_nothing_stored(scan),
            LogicalPlan::Extension(_) | LogicalPlan::RecursiveQuery(_) | LogicalPlan::Dml(_) | LogicalPlan::Ddl(_) | LogicalPlan::Copy(_) => false,
            _ => node.expressions().iter().all(expression_is_reusable),
        };
        Ok(if reusable { TreeNodeRecursion::Continue } else { TreeNodeRecursion::Stop })
    });
    reusable
}

fn reads_nothing_stored(scan: &datafusion::logical_expr::TableScan) -> bool {
    datafusion::datasource::source_as_provider(&scan.source)
        .is_ok_and(|provider| {
            let provider: &dyn std::any::Any = provider.as_ref();
            provider.is::<granary_engines::numbers::NumbersTable>()
        })
}

fn expression_is_reusable(expr: &Expr) -> bool {
    let mut reusable = true;
    let _ = expr.apply(|e| {
        reusable = match e {
            Expr::ScalarFunction(f) => f.func.signature().volatility != Volatility::Stable,
            // Their plans are walked as subqueries of the node.
            _ => true,
        };
        Ok(if reusable { TreeNodeRecursion::Continue } else { TreeNodeRecursion::Stop })
    });
    reusable
}

/// Parsed SELECTs kept at most; a full cache starts over.
const PARSED_CAPACITY: usize = 1024;

/// SELECT statements as parsed, by exact query text: parsing (lexing, sqlparser, the
/// ClickHouse rewrites) was about half the server's work for a small query such as
/// `SELECT 1` sent again and again, and a text always parses to the same statement (the
/// parse depends on nothing else once no `{name:Type}` parameter is in it, which the
/// caller makes sure of). Only successful parses are kept, so errors are always those of
/// a fresh parse; planning, access checks and execution still run for every query.
#[derive(Default)]
pub(crate) struct ParseCache {
    entries: parking_lot::RwLock<HashMap<String, Arc<granary_sql::parse::StatementWithClauses>>>,
}

impl ParseCache {
    pub(crate) fn get(&self, text: &str) -> Option<Arc<granary_sql::parse::StatementWithClauses>> {
        self.entries.read().get(text).cloned()
    }

    pub(crate) fn insert(&self, text: &str, parsed: Arc<granary_sql::parse::StatementWithClauses>) {
        if text.len() > MAX_KEY_BYTES {
            return;
        }
        let mut entries = self.entries.write();
        if entries.len() >= PARSED_CAPACITY {
            entries.clear();
        }
        entries.insert(text.to_string(), parsed);
    }
}
