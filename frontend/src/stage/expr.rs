//! Expression evaluation: dispatches each construct on the values it meets
//! (compile-time values compute now, staged values emit IR).

use super::args::Args;
use super::pyops;
use super::scope::{LookupError, Scope};
use super::value::{SliceValue, Value};
use super::{Stager, R};
use crate::diagnostics::Diagnostic;
use crate::parse::span_of;
use agc_ir::{BinaryOp, CmpOp, Span};
use rustpython_parser::ast::{self, Constant, Expr, Operator};
use std::rc::Rc;

/// The numpy binary op for a Python operator, if it has one.
pub fn binary_op_of(op: Operator) -> Option<BinaryOp> {
    Some(match op {
        Operator::Add => BinaryOp::Add,
        Operator::Sub => BinaryOp::Sub,
        Operator::Mult => BinaryOp::Mul,
        Operator::Div => BinaryOp::Div,
        Operator::FloorDiv => BinaryOp::FloorDiv,
        Operator::Mod => BinaryOp::Mod,
        Operator::Pow => BinaryOp::Pow,
        Operator::BitAnd => BinaryOp::And,
        Operator::BitOr => BinaryOp::Or,
        Operator::BitXor => BinaryOp::Xor,
        Operator::LShift => BinaryOp::Shl,
        Operator::RShift => BinaryOp::Shr,
        _ => return None,
    })
}

fn cmp_op_of(op: ast::CmpOp) -> Option<CmpOp> {
    Some(match op {
        ast::CmpOp::Eq => CmpOp::Eq,
        ast::CmpOp::NotEq => CmpOp::Ne,
        ast::CmpOp::Lt => CmpOp::Lt,
        ast::CmpOp::LtE => CmpOp::Le,
        ast::CmpOp::Gt => CmpOp::Gt,
        ast::CmpOp::GtE => CmpOp::Ge,
        _ => return None,
    })
}

impl Stager {
    /// Evaluates an expression.
    pub fn eval(&mut self, e: &'static Expr, scope: &Rc<Scope>) -> R<Value> {
        let span = span_of(e);
        match e {
            Expr::Constant(c) => constant(&c.value, span),
            Expr::Name(n) => self.lookup(n.id.as_str(), scope, span),
            Expr::Attribute(a) => {
                let base = self.eval(&a.value, scope)?;
                self.get_attr(&base, a.attr.as_str(), span)
            }
            Expr::Subscript(s) => {
                let base = self.eval(&s.value, scope)?;
                let index = self.eval(&s.slice, scope)?;
                self.get_item(&base, &index, span)
            }
            Expr::Call(c) => {
                let func = self.eval(&c.func, scope)?;
                let args = self.eval_args(&c.args, &c.keywords, scope, span)?;
                self.call(&func, args)
            }
            Expr::BinOp(b) => {
                let l = self.eval(&b.left, scope)?;
                let r = self.eval(&b.right, scope)?;
                self.binop(b.op, &l, &r, span)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand, scope)?;
                self.unaryop(u.op, &v, span)
            }
            Expr::BoolOp(b) => self.boolop(b, scope, span),
            Expr::Compare(c) => self.compare_chain(c, scope, span),
            Expr::IfExp(i) => {
                let test = self.eval(&i.test, scope)?;
                match pyops::truthy(&test) {
                    Some(true) => self.eval(&i.body, scope),
                    Some(false) => self.eval(&i.orelse, scope),
                    None => self.staged_ifexp(&test, &i.body, &i.orelse, scope, span),
                }
            }
            Expr::Lambda(l) => self.make_lambda(l, scope, span),
            Expr::List(l) => Ok(Value::list(self.eval_elts(&l.elts, scope)?)),
            Expr::Tuple(t) => Ok(Value::tuple(self.eval_elts(&t.elts, scope)?)),
            Expr::Dict(d) => {
                let mut items = Vec::new();
                for (k, v) in d.keys.iter().zip(&d.values) {
                    let value = self.eval(v, scope)?;
                    match k {
                        Some(k) => {
                            let key = self.eval(k, scope)?;
                            dict_insert(&mut items, key, value);
                        }
                        None => match value {
                            Value::Dict(other) => {
                                for (k2, v2) in other.borrow().iter() {
                                    dict_insert(&mut items, k2.clone(), v2.clone());
                                }
                            }
                            other => {
                                return Err(Diagnostic::error(
                                    span,
                                    format!("'{}' object is not a mapping", other.type_name()),
                                ))
                            }
                        },
                    }
                }
                Ok(Value::Dict(Rc::new(std::cell::RefCell::new(items))))
            }
            Expr::ListComp(c) => Ok(Value::list(self.comprehension(
                &c.elt,
                None,
                &c.generators,
                scope,
            )?)),
            Expr::GeneratorExp(c) => {
                let items = self.comprehension(&c.elt, None, &c.generators, scope)?;
                Ok(self.iterator_over(items))
            }
            Expr::DictComp(c) => {
                let flat = self.comprehension(&c.key, Some(&c.value), &c.generators, scope)?;
                let mut items = Vec::new();
                for pair in flat.chunks(2) {
                    dict_insert(&mut items, pair[0].clone(), pair[1].clone());
                }
                Ok(Value::Dict(Rc::new(std::cell::RefCell::new(items))))
            }
            Expr::Slice(s) => {
                let mut part = |x: &'static Option<Box<Expr>>| -> R<Value> {
                    match x {
                        Some(x) => self.eval(x, scope),
                        None => Ok(Value::None),
                    }
                };
                let (start, stop, step) = (part(&s.lower)?, part(&s.upper)?, part(&s.step)?);
                Ok(Value::Slice(Rc::new(SliceValue { start, stop, step })))
            }
            Expr::JoinedStr(j) => {
                let mut out = String::new();
                for part in &j.values {
                    out.push_str(&pyops::py_str(&self.eval(part, scope)?));
                }
                Ok(Value::str(&out))
            }
            Expr::FormattedValue(f) => {
                let v = self.eval(&f.value, scope)?;
                if v.is_staged() {
                    return Err(Diagnostic::error(
                        span,
                        "a staged tensor has no value at compile time to format",
                    ));
                }
                Ok(Value::str(&pyops::py_str(&v)))
            }
            Expr::Starred(_) => Err(Diagnostic::error(span, "can't use starred expression here")),
            other => Err(Diagnostic::unsupported(
                span,
                format!("unsupported expression: {}", expr_name(other)),
            )),
        }
    }

    /// Name lookup: scopes, then builtins.
    pub fn lookup(&mut self, name: &str, scope: &Rc<Scope>, span: Span) -> R<Value> {
        match scope.lookup(name) {
            Ok(Value::Undefined(why)) => Err(Diagnostic::error(
                span,
                format!("'{name}' is undefined here: {why}"),
            )),
            Ok(Value::MaybeBound(m)) => {
                let (line, _) = self.file.line_col(span.start);
                let message = format!("UnboundLocalError: cannot access local variable '{name}' where it is not associated with a value (line {line}): the path taken did not assign it");
                self.check(&m.bound, message, span)?;
                Ok(m.value.clone())
            }
            Ok(v) => Ok(v),
            Err(LookupError::Unbound) => Err(Diagnostic::raises(
                span,
                "UnboundLocalError",
                format!(
                    "cannot access local variable '{name}' where it is not associated with a value"
                ),
            )),
            Err(LookupError::Undefined) => super::builtins::builtin(name).ok_or_else(|| {
                let mut known = scope.visible_names();
                known.extend(super::builtins::BUILTINS.iter().map(|b| b.to_string()));
                let known: Vec<&str> = known.iter().map(String::as_str).collect();
                Diagnostic::error(span, format!("NameError: name '{name}' is not defined"))
                    .with_suggestion(super::keywords::closest(name, &known))
            }),
        }
    }

    fn eval_elts(&mut self, elts: &'static [Expr], scope: &Rc<Scope>) -> R<Vec<Value>> {
        let mut out = Vec::new();
        for e in elts {
            if let Expr::Starred(s) = e {
                let v = self.eval(&s.value, scope)?;
                out.extend(self.iter_values(&v, span_of(e))?);
            } else {
                out.push(self.eval(e, scope)?);
            }
        }
        Ok(out)
    }

    /// Evaluates call arguments, expanding `*args` and `**kwargs`.
    pub fn eval_args(
        &mut self,
        args: &'static [Expr],
        keywords: &'static [ast::Keyword],
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Args> {
        let pos = self.eval_elts(args, scope)?;
        let mut kw = Vec::new();
        for k in keywords {
            let v = self.eval(&k.value, scope)?;
            match &k.arg {
                Some(name) => kw.push((name.to_string(), v)),
                None => match v {
                    Value::Dict(d) => {
                        for (key, val) in d.borrow().iter() {
                            match key {
                                Value::Str(s) => kw.push((s.to_string(), val.clone())),
                                _ => {
                                    return Err(Diagnostic::error(span, "keywords must be strings"))
                                }
                            }
                        }
                    }
                    other => {
                        return Err(Diagnostic::error(
                            span,
                            format!(
                                "argument after ** must be a mapping, not {}",
                                other.type_name()
                            ),
                        ))
                    }
                },
            }
        }
        Ok(Args { pos, kw, span })
    }

    /// A binary operator on any values.
    pub fn binop(&mut self, op: Operator, l: &Value, r: &Value, span: Span) -> R<Value> {
        let (l, r) = (&self.read_variable(l), &self.read_variable(r));
        if l.has_bottom() || r.has_bottom() {
            return Ok(Value::Bottom);
        }
        if let Some(v) = pyops::binop(op, l, r, span)? {
            return Ok(v);
        }
        // Products of run-time sizes stay symbolic (usable as reshape dims).
        if let (Operator::Mult, Some(a), Some(b)) = (op, sym_dim(l), sym_dim(r)) {
            return Ok(super::methods::dim_value(&agc_ir::infer::dim_product(&[
                a, b,
            ])));
        }
        if let Some(v) = self.instance_operator(op, l, r, span)? {
            return Ok(v);
        }
        if op == Operator::MatMult {
            return self.matmul(l, r, span);
        }
        match binary_op_of(op) {
            Some(b) => self.binary(b, l, r, span),
            None => Err(Diagnostic::unsupported(
                span,
                format!(
                    "operator {} is not supported on tensors",
                    pyops::op_symbol(op)
                ),
            )),
        }
    }

    /// `__add__`-style methods of user classes.
    fn instance_operator(
        &mut self,
        op: Operator,
        l: &Value,
        r: &Value,
        span: Span,
    ) -> R<Option<Value>> {
        let name = match op {
            Operator::Add => "__add__",
            Operator::Sub => "__sub__",
            Operator::Mult => "__mul__",
            Operator::MatMult => "__matmul__",
            Operator::Div => "__truediv__",
            _ => return Ok(None),
        };
        if let Value::Instance(i) = l {
            if i.class.lookup(name).is_some() {
                let m = self.get_attr(l, name, span)?;
                return self
                    .call(&m, Args::positional(vec![r.clone()], span))
                    .map(Some);
            }
        }
        Ok(None)
    }

    /// A unary operator (`-`, `+`, `~`, `not`) on any value.
    pub fn unaryop(&mut self, op: ast::UnaryOp, v: &Value, span: Span) -> R<Value> {
        use agc_ir::UnaryOp as U;
        let v = &self.read_variable(v);
        if v.has_bottom() {
            return Ok(Value::Bottom);
        }
        match (op, v) {
            (ast::UnaryOp::Not, _) => match pyops::truthy(v) {
                Some(b) => Ok(Value::Bool(!b)),
                None => {
                    let t = self.truth_tensor(v, span)?;
                    self.unary(U::Not, &Value::Tensor(t), span)
                }
            },
            (ast::UnaryOp::USub, Value::Int(i)) => Ok(Value::Int(super::pyint::neg(*i, span)?)),
            (ast::UnaryOp::USub, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
            (ast::UnaryOp::USub, Value::Float(f)) => Ok(Value::Float(-f)),
            (ast::UnaryOp::UAdd, Value::Int(_) | Value::Float(_) | Value::Tensor(_)) => {
                Ok(v.clone())
            }
            (ast::UnaryOp::Invert, Value::Int(i)) => Ok(Value::Int(!i)),
            (ast::UnaryOp::Invert, Value::Bool(b)) => Ok(Value::Int(!(*b as i64))),
            (ast::UnaryOp::USub, _) if v.is_staged() => self.unary(U::Neg, v, span),
            (ast::UnaryOp::Invert, Value::Tensor(t)) if t.ty.dtype == agc_ir::DType::Bool => {
                self.unary(U::Not, v, span)
            }
            (ast::UnaryOp::Invert, Value::Tensor(_)) => {
                let minus_one = Value::Int(-1);
                self.binary(BinaryOp::Xor, v, &minus_one, span)
            }
            _ => Err(Diagnostic::error(
                span,
                format!("bad operand type for unary operator: '{}'", v.type_name()),
            )),
        }
    }

    /// A staged value's truth as a rank-0 bool tensor (for `not`, `and`, `or` and staged `if`).
    pub fn truth_tensor(&mut self, v: &Value, span: Span) -> R<super::value::Tensor> {
        if matches!(v, Value::Bottom) {
            // A value whose type is still being found (a trace to be discarded): either way.
            return self.scalar(0.0, agc_ir::DType::Bool, span);
        }
        let v = &self.read_variable(v);
        let t = self.to_tensor(v, None, span)?;
        if t.ty.rank() != 0 {
            return Err(Diagnostic::error(
                span,
                format!(
                    "the truth value of an array with shape {} is ambiguous; use np.any() or np.all()",
                    t.ty.shape_string()
                ),
            ));
        }
        if t.ty.dtype == agc_ir::DType::Bool {
            return Ok(t);
        }
        let zero = Value::Int(0);
        match self.compare(CmpOp::Ne, &Value::Tensor(t), &zero, span)? {
            Value::Tensor(t) => Ok(t),
            _ => unreachable!("compare stages a tensor"),
        }
    }

    fn boolop(&mut self, b: &'static ast::ExprBoolOp, scope: &Rc<Scope>, span: Span) -> R<Value> {
        let is_and = b.op == ast::BoolOp::And;
        let mut acc = self.eval(&b.values[0], scope)?;
        for e in &b.values[1..] {
            match pyops::truthy(&acc) {
                Some(t) if t != is_and => return Ok(acc),
                Some(_) => acc = self.eval(e, scope)?,
                None => {
                    // Short-circuit on a staged value: the right side runs only when needed.
                    let c = self.truth_tensor(&acc, span)?;
                    let left = acc.clone();
                    let what = "the operands of a staged `and`/`or`";
                    acc = if is_and {
                        self.staged_choice(c, |s| s.eval(e, scope), move |_| Ok(left), what, span)?
                    } else {
                        self.staged_choice(c, move |_| Ok(left), |s| s.eval(e, scope), what, span)?
                    };
                }
            }
        }
        Ok(acc)
    }

    fn compare_chain(
        &mut self,
        c: &'static ast::ExprCompare,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Value> {
        let mut left = self.eval(&c.left, scope)?;
        let mut result: Option<Value> = None;
        for (op, right_e) in c.ops.iter().zip(&c.comparators) {
            let right = self.eval(right_e, scope)?;
            if left.has_bottom() || right.has_bottom() {
                return Ok(Value::Bottom);
            }
            let r = self.compare_values(*op, &left, &right, span)?;
            result = Some(match result {
                None => r,
                Some(prev) => match (pyops::truthy(&prev), pyops::truthy(&r)) {
                    (Some(false), _) => return Ok(prev),
                    (Some(true), _) => r,
                    _ => {
                        let (a, b) = (
                            self.to_tensor(&prev, None, span)?,
                            self.to_tensor(&r, None, span)?,
                        );
                        Value::Tensor(self.binary_same(BinaryOp::And, &a, &b, span)?)
                    }
                },
            });
            if matches!(result, Some(Value::Bool(false))) {
                return Ok(Value::Bool(false));
            }
            left = right;
        }
        Ok(result.unwrap_or(Value::Bool(true)))
    }

    /// One comparison `left op right` (`==`, `<`, `in`, `is`, ...) on any values.
    pub fn compare_values(
        &mut self,
        op: ast::CmpOp,
        left: &Value,
        right: &Value,
        span: Span,
    ) -> R<Value> {
        let (left, right) = (&self.read_variable(left), &self.read_variable(right));
        match pyops::compare(op, left, right, span)? {
            Some(b) => Ok(Value::Bool(b)),
            None => {
                let op = cmp_op_of(op).ok_or_else(|| {
                    Diagnostic::unsupported(span, "`in`/`is` on staged tensors is not supported")
                })?;
                self.compare(op, left, right, span)
            }
        }
    }

    /// `x if c else y` with a staged `c`: each side is evaluated in its own
    /// region of an IR `if`, so only the chosen side runs.
    fn staged_ifexp(
        &mut self,
        test: &Value,
        body: &'static Expr,
        orelse: &'static Expr,
        scope: &Rc<Scope>,
        span: Span,
    ) -> R<Value> {
        let c = self.truth_tensor(test, span)?;
        self.staged_choice(
            c,
            |s| s.eval(body, scope),
            |s| s.eval(orelse, scope),
            "the two sides of a staged conditional expression",
            span,
        )
    }

    /// The value of `then` where `cond` holds and of `otherwise` elsewhere,
    /// each computed in its own region of an IR `if`.
    pub fn staged_choice(
        &mut self,
        cond: super::value::Tensor,
        then: impl FnOnce(&mut Stager) -> R<Value>,
        otherwise: impl FnOnce(&mut Stager) -> R<Value>,
        what: &str,
        span: Span,
    ) -> R<Value> {
        let f = self.func_mut();
        let (then_r, else_r) = (f.new_region(&[]), f.new_region(&[]));
        let a = self.in_region(then_r, then)?;
        let b = self.in_region(else_r, otherwise)?;
        let plan = super::merge::plan(&a, &b, what, span)?;
        if let super::merge::Plan::Static(v) = plan {
            return Ok(v);
        }
        let mut yields = [Vec::new(), Vec::new()];
        for (k, (region, v)) in [(then_r, &a), (else_r, &b)].into_iter().enumerate() {
            let out = &mut yields[k];
            let ops = self.in_region(region, |s| {
                s.materialize(Some(v), &plan, span, what, out)?;
                out.iter()
                    .map(|t| s.localize(t, span))
                    .collect::<R<Vec<_>>>()
            })?;
            self.func_mut()
                .append_op(region, agc_ir::OpKind::Yield, ops, vec![], vec![], span);
        }
        let mut types = Vec::new();
        super::merge::staged_types(&plan, &mut types);
        let cond_v = self.localize(&cond, span)?;
        let region = self.region;
        let result_types = types
            .iter()
            .map(|t| agc_ir::Type::Tensor(t.clone()))
            .collect();
        let (_, results) = self.func_mut().append_op(
            region,
            agc_ir::OpKind::If,
            vec![cond_v],
            result_types,
            vec![then_r, else_r],
            span,
        );
        let origin = self.generation;
        let mut values = results
            .into_iter()
            .zip(types)
            .map(|(value, ty)| super::value::Tensor {
                value,
                ty,
                origin,
                region,
                weak: false,
            });
        Ok(super::merge::rebuild(&plan, &mut values))
    }

    /// Runs `f` with ops appended to `region` (nested in the current one).
    pub fn in_region<T>(
        &mut self,
        region: agc_ir::RegionId,
        f: impl FnOnce(&mut Stager) -> R<T>,
    ) -> R<T> {
        let saved = std::mem::replace(&mut self.region, region);
        self.open_regions.push(region);
        let r = f(self);
        self.open_regions.pop();
        self.region = saved;
        r
    }

    fn comprehension(
        &mut self,
        elt: &'static Expr,
        value: Option<&'static Expr>,
        generators: &'static [ast::Comprehension],
        scope: &Rc<Scope>,
    ) -> R<Vec<Value>> {
        let inner = Scope::child(
            super::scope::ScopeKind::Function,
            scope.clone(),
            Rc::default(),
            Default::default(),
        );
        let mut out = Vec::new();
        self.comprehension_level(elt, value, generators, &inner, &mut out)?;
        Ok(out)
    }

    fn comprehension_level(
        &mut self,
        elt: &'static Expr,
        value: Option<&'static Expr>,
        generators: &'static [ast::Comprehension],
        scope: &Rc<Scope>,
        out: &mut Vec<Value>,
    ) -> R<()> {
        let Some((g, rest)) = generators.split_first() else {
            out.push(self.eval(elt, scope)?);
            if let Some(v) = value {
                out.push(self.eval(v, scope)?);
            }
            return Ok(());
        };
        let iterable = self.eval(&g.iter, scope)?;
        'items: for item in self.iter_values(&iterable, span_of(&g.iter))? {
            self.assign(&g.target, item, scope)?;
            for cond in &g.ifs {
                let c = self.eval(cond, scope)?;
                match pyops::truthy(&c) {
                    Some(true) => {}
                    Some(false) => continue 'items,
                    None => {
                        return Err(Diagnostic::unsupported(
                            span_of(cond),
                            "a comprehension filter on a staged value is not supported",
                        ))
                    }
                }
            }
            self.comprehension_level(elt, value, rest, scope, out)?;
        }
        Ok(())
    }
}

/// A run-time size or a non-negative compile-time int, as a dim.
fn sym_dim(v: &Value) -> Option<agc_ir::Dim> {
    match v {
        Value::SymInt(d) => Some(d.clone()),
        Value::Int(n) if *n >= 0 => Some(agc_ir::Dim::Static(*n)),
        _ => None,
    }
}

/// Inserts or replaces a dict entry, keeping insertion order.
pub fn dict_insert(items: &mut Vec<(Value, Value)>, key: Value, value: Value) {
    match items.iter_mut().find(|(k, _)| pyops::py_eq(k, &key)) {
        Some(slot) => slot.1 = value,
        None => items.push((key, value)),
    }
}

fn constant(c: &Constant, span: Span) -> R<Value> {
    Ok(match c {
        Constant::None => Value::None,
        Constant::Bool(b) => Value::Bool(*b),
        Constant::Str(s) => Value::str(s),
        Constant::Int(i) => Value::Int(
            i64::try_from(i)
                .map_err(|_| Diagnostic::error(span, "integer literal does not fit in 64 bits"))?,
        ),
        Constant::Float(f) => Value::Float(*f),
        Constant::Tuple(items) => {
            Value::tuple(items.iter().map(|c| constant(c, span)).collect::<R<_>>()?)
        }
        Constant::Ellipsis => Value::Ellipsis,
        Constant::Bytes(_) => {
            return Err(Diagnostic::unsupported(
                span,
                "bytes literals are not supported",
            ))
        }
        Constant::Complex { .. } => {
            return Err(Diagnostic::unsupported(
                span,
                "complex numbers are not supported",
            ))
        }
    })
}

fn expr_name(e: &Expr) -> &'static str {
    match e {
        Expr::Await(_) => "await",
        Expr::Yield(_) | Expr::YieldFrom(_) => "yield",
        Expr::Set(_) | Expr::SetComp(_) => "set",
        Expr::NamedExpr(_) => "assignment expression",
        _ => "expression",
    }
}
