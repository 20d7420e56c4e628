//! From a region's ops to an e-graph and back.
//!
//! On entering a region, its pure ops become e-nodes (their operands from
//! outside the region's pure dataflow become leaves), the rules run to
//! saturation or a limit, and the cheapest member of every e-class is
//! chosen. The copy then emits no pure op where it stood: a pure value is
//! built, cheapest form first, just before the first op that needs it (a
//! checked or opaque op, a terminator, or an op of a nested region), and
//! once. A value nobody needs is never built. Should the cheapest form use
//! a leaf that is not defined yet at that point (a result of a later
//! opaque op), the op that computed the value in the source is copied
//! instead, so the output is always well formed.

use super::analysis::{Graph, Types};
use super::lang::{Node, Op};
use super::rules::Rule;
use crate::copy::{Copier, Visit};
use crate::effects::{effect, Effect};
use agc_ir::{Function, OpId, OpKind, RegionId, Span, Type, Value};
use egg::{Id, Runner};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

/// Saturation limits per region.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Rule-application rounds.
    pub iterations: usize,
    /// E-nodes the rules may add to a region's graph (a limit on the
    /// graph's total would stop a region larger than it before any rule ran).
    pub nodes: usize,
    /// Wall time.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            iterations: 12,
            nodes: 20_000,
            time: Duration::from_millis(200),
        }
    }
}

/// Totals over the regions of one function.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Regions saturated.
    pub regions: usize,
    /// E-nodes after saturation, summed.
    pub enodes: usize,
    /// Rounds, summed.
    pub iterations: usize,
    /// Why the last region with a limit stopped (`saturated` when none hit one).
    pub stop: String,
    /// Wall time of saturation and extraction.
    pub millis: f64,
    /// Pure ops in the source.
    pub pure_before: usize,
    /// Pure ops emitted.
    pub pure_after: usize,
    /// Per rule, how many times it changed an e-graph (summed over regions).
    pub hits: BTreeMap<String, usize>,
}

/// The e-graph of one region and what extraction chose.
struct RegionGraph {
    eg: Graph,
    class_of: HashMap<Value, Id>,
    best: HashMap<Id, Node>,
    original: HashMap<Id, OpId>,
    built: HashMap<Id, Value>,
}

/// The [`Visit`] that optimises a function region by region.
pub struct Saturate<'r> {
    rules: &'r [Rule],
    /// Whether every rule is exact (for [`super::check`]).
    exact: bool,
    limits: Limits,
    stack: Vec<RegionGraph>,
    /// What each region op of the source function reads from outside it.
    free: HashMap<OpId, Vec<Value>>,
    /// What happened.
    pub stats: Stats,
}

impl<'r> Saturate<'r> {
    /// Optimises `f` with `rules` (`exact`: every rule exact); returns the
    /// copy and the statistics.
    pub fn function(
        f: &Function,
        rules: &'r [Rule],
        exact: bool,
        limits: Limits,
    ) -> (Function, Stats) {
        let mut s = Saturate {
            rules,
            exact,
            limits,
            stack: Vec::new(),
            free: f.free_values_of_region_ops(),
            stats: Stats {
                stop: "saturated".into(),
                ..Stats::default()
            },
        };
        let graph = s.graph(f, f.body);
        s.stack.push(graph);
        let out = Copier::run(f, &mut s);
        (out, s.stats)
    }

    fn graph(&mut self, f: &Function, r: RegionId) -> RegionGraph {
        let start = Instant::now();
        let mut eg = Graph::new(Types::default());
        let mut class_of = HashMap::new();
        let mut original = HashMap::new();
        for &op in &f.region(r).ops {
            let od = f.op(op);
            if effect(f, od) != Effect::Pure {
                continue;
            }
            let args: Vec<Id> = od
                .operands
                .iter()
                .map(|v| match class_of.get(v) {
                    Some(id) => *id,
                    None => {
                        let leaf = eg.analysis.leaf(v.0, f.ty(*v).tensor().clone());
                        eg.add(leaf)
                    }
                })
                .collect();
            let ty = f.ty(od.results[0]).tensor().clone();
            let op_of = match &od.kind {
                OpKind::Unary(u) => Some(Op::Unary(*u)),
                OpKind::Binary(b) => Some(Op::Binary(*b)),
                OpKind::Compare(c) => Some(Op::Compare(*c)),
                OpKind::Select => Some(Op::Select),
                OpKind::MatMul => Some(Op::MatMul),
                _ => None,
            };
            let node = match op_of {
                Some(op) => Node { op, args },
                None => eg.analysis.attr(od.kind.clone(), ty, args),
            };
            let id = eg.add(node);
            class_of.insert(od.results[0], id);
            original.entry(id).or_insert(op);
            self.stats.pure_before += 1;
        }
        let staged_nodes = eg.total_number_of_nodes();
        let runner = Runner::default()
            .with_egraph(eg)
            .with_iter_limit(self.limits.iterations)
            .with_node_limit(staged_nodes + self.limits.nodes)
            .with_time_limit(self.limits.time)
            .run(self.rules);
        let stop = runner.stop_reason.clone();
        self.stats.iterations += runner.iterations.len();
        for (rule, n) in runner.iterations.iter().flat_map(|i| &i.applied) {
            *self.stats.hits.entry(rule.to_string()).or_default() += n;
        }
        let eg = runner.egraph;
        if !matches!(stop, Some(egg::StopReason::Saturated) | None) {
            self.stats.stop = match &stop {
                Some(egg::StopReason::IterationLimit(n)) => format!("iteration limit {n}"),
                Some(egg::StopReason::NodeLimit(n)) => format!("e-node limit {n}"),
                Some(egg::StopReason::TimeLimit(s)) => format!("time limit {s:.2} s"),
                other => format!("{other:?}"),
            };
            tracing::debug!(reason = ?stop, "saturation stopped by a limit");
        }
        let best = super::dag::refine(&eg, super::extract::best_nodes(&eg));
        if super::check::wanted() {
            super::check::check_classes(&eg, &best, self.exact);
        }
        let original = original
            .into_iter()
            .map(|(id, op)| (eg.find(id), op))
            .collect::<HashMap<_, _>>();
        let class_of = class_of
            .into_iter()
            .map(|(v, id)| (v, eg.find(id)))
            .collect();
        self.stats.regions += 1;
        self.stats.enodes += eg.total_number_of_nodes();
        self.stats.millis += start.elapsed().as_secs_f64() * 1e3;
        RegionGraph {
            eg,
            class_of,
            best,
            original,
            built: HashMap::new(),
        }
    }

    /// Makes source value `v` available in the copy at the end of `at`.
    fn need(&mut self, c: &mut Copier, at: RegionId, v: Value) {
        if c.try_mapped(v).is_some() {
            return;
        }
        let g = self.stack.last().expect("a region graph");
        let class = *g
            .class_of
            .get(&v)
            .unwrap_or_else(|| panic!("{v} is neither copied nor a pure value of this region"));
        let span = c.src.op(g.original[&class]).span;
        let built = self
            .build(c, at, class, span)
            .expect("the source form of a value is always buildable");
        c.alias(v, built);
    }

    /// Builds e-class `class` at the end of `at`: its chosen form, else its
    /// source form; `None` when neither can be built here yet.
    fn build(&mut self, c: &mut Copier, at: RegionId, class: Id, span: Span) -> Option<Value> {
        let g = self.stack.last().expect("a region graph");
        let class = g.eg.find(class);
        if let Some(v) = g.built.get(&class) {
            return Some(*v);
        }
        let node = g.best[&class].clone();
        let span = g.original.get(&class).map_or(span, |op| c.src.op(*op).span);
        let v = match self.build_node(c, at, class, &node, span) {
            Some(v) => v,
            None => self.build_source(c, at, class)?,
        };
        self.stack
            .last_mut()
            .expect("a region graph")
            .built
            .insert(class, v);
        Some(v)
    }

    fn build_node(
        &mut self,
        c: &mut Copier,
        at: RegionId,
        class: Id,
        node: &Node,
        span: Span,
    ) -> Option<Value> {
        if let Op::Leaf(v) = node.op {
            return c.try_mapped(Value(v));
        }
        let mut args = Vec::with_capacity(node.args.len());
        for a in &node.args {
            args.push(self.build(c, at, *a, span)?);
        }
        let g = self.stack.last().expect("a region graph");
        let kind = node.ir_kind(&g.eg);
        let ty = Type::Tensor(g.eg[class].data.ty.clone());
        self.stats.pure_after += 1;
        let (_, results) = c.dst.append_op(at, kind, args, vec![ty], Vec::new(), span);
        Some(results[0])
    }

    /// Copies the source op that first computed `class`, its operands built first.
    fn build_source(&mut self, c: &mut Copier, at: RegionId, class: Id) -> Option<Value> {
        let g = self.stack.last().expect("a region graph");
        let op = *g.original.get(&class)?;
        let od = c.src.op(op);
        let mut args = Vec::with_capacity(od.operands.len());
        for v in &od.operands {
            let g = self.stack.last().expect("a region graph");
            let arg = match g.class_of.get(v) {
                Some(id) => self.build(c, at, *id, od.span)?,
                None => c.try_mapped(*v)?,
            };
            args.push(arg);
        }
        let ty = c.src.ty(od.results[0]).clone();
        self.stats.pure_after += 1;
        let (_, results) =
            c.dst
                .append_op(at, od.kind.clone(), args, vec![ty], Vec::new(), od.span);
        Some(results[0])
    }
}

impl Visit for Saturate<'_> {
    fn op(&mut self, c: &mut Copier, at: RegionId, op: OpId) {
        let od = c.src.op(op);
        let g = self.stack.last().expect("a region graph");
        if od.results.len() == 1 && g.class_of.contains_key(&od.results[0]) {
            return; // built where first needed
        }
        let mut needed: BTreeSet<Value> = od.operands.iter().copied().collect();
        needed.extend(self.free.get(&op).into_iter().flatten().copied());
        for v in needed {
            self.need(c, at, v);
        }
        c.keep(self, at, op);
    }

    fn enter(&mut self, c: &Copier, region: RegionId) {
        let g = self.graph(c.src, region);
        self.stack.push(g);
    }

    fn leave(&mut self, _c: &Copier, _region: RegionId) {
        self.stack.pop();
    }
}
