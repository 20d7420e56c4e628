//! `np.einsum`: the subscripts string (`"...ij,jk->...ik"`, explicit or
//! implicit output) or the sublist form (`np.einsum(a, [0, 1], b, [1, 2],
//! [0, 2])`, ints 0-25 naming `A`-`Z` and 26-51 `a`-`z`, `Ellipsis` for
//! `...`).
//!
//! `...` stands for the leading dims an operand's letters leave over; the
//! ellipsis dims of all operands are right-aligned and broadcast (a size-1
//! dim of one operand against a larger one of another is squeezed out of the
//! first). Each is given a label of its own, so what follows only sees
//! labels: repeated labels of one operand take its diagonal, labels needed
//! nowhere else are summed first, then the operands are contracted pairwise,
//! left to right, one matmul each ([`Stager::contract_pair`]).

use super::args::Args;
use super::value::{Tensor, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use agc_ir::{Dim, ReduceKind, Span};

/// One item of a subscripts term.
#[derive(Clone, Copy, PartialEq)]
enum Sub {
    /// A letter.
    Label(char),
    /// `...`
    Ellipsis,
}

/// One operand: its tensor and one label per axis.
struct Labelled {
    t: Tensor,
    labels: Vec<char>,
}

/// The label of ellipsis dim `k` (counted from the first of the widest
/// ellipsis): a character no subscripts string can hold.
fn ellipsis_label(k: usize) -> char {
    char::from_u32(0xE000 + k as u32).unwrap_or('\u{E000}')
}

fn is_ellipsis_label(c: char) -> bool {
    ('\u{E000}'..='\u{F8FF}').contains(&c)
}

/// A term of a subscripts string: letters and at most one `...`.
fn parse_term(term: &str, span: Span) -> R<Vec<Sub>> {
    let mut out = Vec::new();
    let mut rest = term;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if out.contains(&Sub::Ellipsis) {
                return Err(Diagnostic::error(span, "einstein sum subscripts string contains more than one ellipsis ('...') in an operand"));
            }
            out.push(Sub::Ellipsis);
            rest = after;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(Diagnostic::error(span, format!("invalid subscript '{c}' in einstein sum subscripts string, subscripts must be letters")));
        }
        out.push(Sub::Label(c));
        rest = &rest[1..];
    }
    Ok(out)
}

/// A sublist (`[0, 1, Ellipsis]`) as a term.
fn parse_sublist(v: &Value, span: Span) -> R<Vec<Sub>> {
    super::pyops::iterate(v, span)?
        .iter()
        .map(|x| match x {
            Value::Ellipsis => Ok(Sub::Ellipsis),
            other => match other.as_int() {
                Some(k @ 0..=25) => Ok(Sub::Label((b'A' + k as u8) as char)),
                Some(k @ 26..=51) => Ok(Sub::Label((b'a' + (k - 26) as u8) as char)),
                _ => Err(Diagnostic::error(
                    span,
                    format!(
                        "einsum: subscript {} is not an int in [0, 52) or Ellipsis",
                        super::pyops::py_repr(other)
                    ),
                )),
            },
        })
        .collect()
}

/// The terms, output (explicit form) and operands of an einsum call.
type Parsed = (Vec<Vec<Sub>>, Option<Vec<Sub>>, Vec<Value>);

fn parse_call(args: &Args) -> R<Parsed> {
    let span = args.span;
    // `optimize` only changes the contraction order numpy picks.
    if let Some((k, _)) = args.kw.iter().find(|(k, _)| k != "optimize") {
        return Err(Diagnostic::unsupported(
            span,
            format!("np.einsum's keyword argument '{k}' is not supported (only optimize is)"),
        ));
    }
    match args.pos.first() {
        Some(Value::Str(spec)) => {
            let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
            let (lhs, out) = match spec.split_once("->") {
                Some((l, o)) => (l.to_string(), Some(parse_term(o, span)?)),
                None => (spec, None),
            };
            let terms = lhs
                .split(',')
                .map(|t| parse_term(t, span))
                .collect::<R<Vec<_>>>()?;
            Ok((terms, out, args.pos[1..].to_vec()))
        }
        Some(_) => {
            // np.einsum(op0, sublist0, op1, sublist1, ..., [sublist_out])
            let (pairs, out) = args.pos.split_at(args.pos.len() - args.pos.len() % 2);
            let terms = pairs
                .chunks(2)
                .map(|p| parse_sublist(&p[1], span))
                .collect::<R<Vec<_>>>()?;
            let out = out.first().map(|o| parse_sublist(o, span)).transpose()?;
            Ok((terms, out, pairs.chunks(2).map(|p| p[0].clone()).collect()))
        }
        None => Err(Diagnostic::error(span, "einsum needs at least one operand")),
    }
}

impl Stager {
    /// `np.einsum(subscripts, *operands)` or `np.einsum(op, sublist, ..., [out])`.
    pub(super) fn einsum(&mut self, args: &Args) -> R<Value> {
        let span = args.span;
        let (terms, out, operands) = parse_call(args)?;
        if terms.len() != operands.len() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "einsum: the subscripts name {} operands but {} were given",
                    terms.len(),
                    operands.len()
                ),
            ));
        }
        let refs: Vec<&Value> = operands.iter().collect();
        let (ts, _) = self.promote(&refs, span)?;
        // Each operand's `...` covers the dims its letters leave over.
        let mut widths = Vec::new();
        for (i, (t, term)) in ts.iter().zip(&terms).enumerate() {
            let letters = term.iter().filter(|s| **s != Sub::Ellipsis).count();
            let has_ellipsis = term.contains(&Sub::Ellipsis);
            if letters > t.ty.rank() || (!has_ellipsis && letters != t.ty.rank()) {
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "einsum: operand {i} has {} dimensions but its subscripts name {letters}",
                        t.ty.rank()
                    ),
                ));
            }
            widths.push(t.ty.rank() - letters);
        }
        let width = widths.iter().copied().max().unwrap_or(0);
        let mut ops = Vec::new();
        for (t, (term, w)) in ts.into_iter().zip(terms.iter().zip(&widths)) {
            let labels = term
                .iter()
                .flat_map(|s| match s {
                    Sub::Label(c) => vec![*c],
                    Sub::Ellipsis => (width - w..width).map(ellipsis_label).collect(),
                })
                .collect();
            ops.push(Labelled { t, labels });
        }
        self.broadcast_ellipsis(&mut ops, span)?;
        let count = |c: char| {
            ops.iter()
                .flat_map(|o| &o.labels)
                .filter(|&&x| x == c)
                .count()
        };
        let out: Vec<char> = match out {
            Some(o) => {
                if width > 0 && !o.contains(&Sub::Ellipsis) {
                    return Err(Diagnostic::error(span, "output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis provided to broadcast the extra dimensions."));
                }
                let o: Vec<char> = o
                    .iter()
                    .flat_map(|s| match s {
                        Sub::Label(c) => vec![*c],
                        Sub::Ellipsis => (0..width).map(ellipsis_label).collect(),
                    })
                    .collect();
                for (i, &c) in o.iter().enumerate() {
                    if count(c) == 0 && !is_ellipsis_label(c) {
                        return Err(Diagnostic::error(span, format!("einstein sum subscripts string included output subscript '{c}' which never appeared in an input")));
                    }
                    if o[..i].contains(&c) {
                        return Err(Diagnostic::error(span, format!("einstein sum subscripts string includes output subscript '{c}' multiple times")));
                    }
                }
                o
            }
            None => {
                // Broadcast dims first, then the letters used once, sorted.
                let mut once: Vec<char> = ops
                    .iter()
                    .flat_map(|o| o.labels.clone())
                    .filter(|&c| !is_ellipsis_label(c) && count(c) == 1)
                    .collect();
                once.sort_unstable();
                (0..width).map(ellipsis_label).chain(once).collect()
            }
        };
        let ops = ops
            .into_iter()
            .enumerate()
            .map(|(i, op)| self.collapse_repeated(op, i, span))
            .collect::<R<Vec<_>>>()?;
        self.contract_labelled(ops, &out, span).map(Value::Tensor)
    }

    /// Broadcasts the ellipsis dims: a static size-1 dim against a larger
    /// one of another operand is squeezed out (the operand does not vary
    /// along it); other differing sizes are an error.
    fn broadcast_ellipsis(&mut self, ops: &mut [Labelled], span: Span) -> R<()> {
        let labels: Vec<char> = ops
            .iter()
            .flat_map(|o| o.labels.clone())
            .filter(|c| is_ellipsis_label(*c))
            .collect();
        for c in labels {
            let dims: Vec<Dim> = ops
                .iter()
                .filter_map(|o| {
                    o.labels
                        .iter()
                        .position(|&x| x == c)
                        .map(|a| o.t.ty.dims[a].clone())
                })
                .collect();
            let big: Vec<&Dim> = dims.iter().filter(|d| **d != Dim::Static(1)).collect();
            if big.windows(2).any(|w| w[0] != w[1]) {
                let shapes: Vec<String> = ops.iter().map(|o| o.t.ty.shape_string()).collect();
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "operands could not be broadcast together with remapped shapes {}",
                        shapes.join(" ")
                    ),
                ));
            }
            if big.is_empty() {
                continue;
            }
            for op in ops.iter_mut() {
                if let Some(a) = op
                    .labels
                    .iter()
                    .position(|&x| x == c)
                    .filter(|&a| op.t.ty.dims[a] == Dim::Static(1))
                {
                    let mut dims = op.t.ty.dims.clone();
                    dims.remove(a);
                    op.t = self.reshape_to(&op.t, dims, span)?;
                    op.labels.remove(a);
                }
            }
        }
        Ok(())
    }
}

impl Stager {
    /// Contracts labelled operands (no label repeated within one) into the
    /// `out` labels: labels needed nowhere else are summed first, then the
    /// operands are contracted pairwise, left to right.
    fn contract_labelled(&mut self, mut ops: Vec<Labelled>, out: &[char], span: Span) -> R<Tensor> {
        // Sum each operand's labels that no other operand and not the output has.
        for i in 0..ops.len() {
            let elsewhere = |c: &char| {
                out.contains(c)
                    || ops
                        .iter()
                        .enumerate()
                        .any(|(j, o)| j != i && o.labels.contains(c))
            };
            let axes: Vec<usize> = (0..ops[i].labels.len())
                .filter(|&a| !elsewhere(&ops[i].labels[a]))
                .collect();
            if !axes.is_empty() {
                let t = self.reduce(ReduceKind::Sum, &ops[i].t, &axes, false, span)?;
                let labels = ops[i]
                    .labels
                    .iter()
                    .enumerate()
                    .filter(|(a, _)| !axes.contains(a))
                    .map(|(_, &c)| c)
                    .collect();
                ops[i] = Labelled { t, labels };
            }
        }
        let mut rest = ops.into_iter();
        let mut acc = rest
            .next()
            .ok_or_else(|| Diagnostic::error(span, "einsum needs at least one operand"))?;
        let later: Vec<Labelled> = rest.collect();
        for (j, op) in later.iter().enumerate() {
            let needed =
                |c: &char| out.contains(c) || later[j + 1..].iter().any(|o| o.labels.contains(c));
            let (mut batch, mut contracted) = (Vec::new(), Vec::new());
            for (a, c) in acc.labels.iter().enumerate() {
                if let Some(b) = op.labels.iter().position(|x| x == c) {
                    if needed(c) {
                        batch.push((a, b))
                    } else {
                        contracted.push((a, b))
                    }
                }
            }
            let paired_b: Vec<usize> = batch.iter().chain(&contracted).map(|p| p.1).collect();
            let labels: Vec<char> = batch
                .iter()
                .map(|p| acc.labels[p.0])
                .chain(
                    acc.labels
                        .iter()
                        .copied()
                        .filter(|c| !op.labels.contains(c)),
                )
                .chain(
                    op.labels
                        .iter()
                        .enumerate()
                        .filter(|(b, _)| !paired_b.contains(b))
                        .map(|(_, &c)| c),
                )
                .collect();
            let t = self.contract_pair(&acc.t, &op.t, &batch, &contracted, span)?;
            acc = Labelled { t, labels };
        }
        let perm: Vec<usize> = out
            .iter()
            .filter_map(|c| acc.labels.iter().position(|x| x == c))
            .collect();
        self.permute(&acc.t, perm, span)
    }

    /// Replaces each label repeated within one einsum operand by the diagonal of its axes.
    fn collapse_repeated(&mut self, mut op: Labelled, index: usize, span: Span) -> R<Labelled> {
        while let Some((p, q)) = (0..op.labels.len()).find_map(|p| {
            op.labels[p + 1..]
                .iter()
                .position(|&c| c == op.labels[p])
                .map(|q| (p, p + 1 + q))
        }) {
            let c = op.labels[p];
            if op.t.ty.dims[p] != op.t.ty.dims[q] {
                return Err(Diagnostic::error(
                    span,
                    format!("dimensions in operand {index} for collapsing index '{c}' don't match ({} != {})", op.t.ty.dims[p], op.t.ty.dims[q]),
                ));
            }
            op.t = self.diagonal(&op.t, 0, p as i64, q as i64, span)?;
            op.labels.remove(q);
            op.labels.remove(p);
            op.labels.push(c);
        }
        Ok(op)
    }
}
