//! Where a script calls functions, read from its compiled AST (never from its text): each call
//! with its name, number of arguments, place, and the named function it is written in.
//!
//! A call inside a closure belongs to the named function the closure is written in, so
//! `|x| original(x)` in `fn f(x)` is a call from `f`. Calls at the top level of a script belong
//! to no function.

use rhai::{ASTNode, Dynamic, Expr, FnCallExpr, Position, Stmt, AST};

/// The keyword that makes a function pointer from a name: `Fn("name")`.
const FN_PTR: &str = "Fn";

/// How a function is named at a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// `name(args…)`.
    Plain,
    /// `name!(args…)`: the callee sees the caller's variables.
    Capturing,
    /// `value.name(args…)`: the value is the first argument.
    Method,
    /// `module::name(args…)`: a function of an imported module.
    Namespaced,
    /// `Fn("name")`: a pointer to the function, called later with any number of arguments.
    Pointer,
}

/// A named function's body: where it starts and ends (line, column), and the function.
type Body = ((usize, usize), (usize, usize), (String, usize));

/// One call written in a script.
#[derive(Debug, Clone)]
pub(super) struct CallSite {
    pub name: String,
    /// The number of arguments, counting the value a method is called on.
    pub args: usize,
    pub form: Form,
    pub line: usize,
    pub column: usize,
    /// The named function (name, arity) the call is written in, if any.
    pub within: Option<(String, usize)>,
}

impl CallSite {
    pub fn position(&self) -> Position {
        Position::new(self.line as u16, self.column as u16)
    }
}

/// Every function call in `ast`, in its functions' bodies (closures included) and at its top
/// level. Operators (`a + b`) are not calls here.
pub(super) fn call_sites(ast: &AST) -> Vec<CallSite> {
    let bodies: Vec<Body> = ast
        .iter_fn_def()
        .filter(|f| !f.name.starts_with("anon$"))
        .filter_map(|f| {
            let (start, end) = (f.body.start_position(), f.body.end_position());
            Some((place(start)?, place(end)?, (f.name.to_string(), f.params.len())))
        })
        .collect();
    let mut found = Vec::new();
    ast.walk(&mut |path: &[ASTNode]| {
        let site = match path.last() {
            Some(ASTNode::Expr(Expr::FnCall(x, pos))) | Some(ASTNode::Stmt(Stmt::FnCall(x, pos))) => {
                plain_call(x, *pos)
            }
            Some(ASTNode::Expr(Expr::MethodCall(x, pos))) => {
                Some((x.name.to_string(), x.args.len() + 1, Form::Method, *pos))
            }
            Some(ASTNode::Expr(Expr::DynamicConstant(value, pos))) => {
                pointer(value).map(|n| (n, 0, Form::Pointer, *pos))
            }
            _ => None,
        };
        if let Some((name, args, form, pos)) = site {
            if let Some((line, column)) = place(pos) {
                found.push(CallSite { name, args, form, line, column, within: None });
            }
        }
        true
    });
    for site in &mut found {
        let at = (site.line, site.column);
        site.within = bodies.iter().find(|(start, end, _)| *start <= at && at <= *end).map(|(.., f)| f.clone());
    }
    found
}

/// A call written `name(…)`, `name!(…)`, `m::name(…)` or `Fn("name")`; operators are left out.
fn plain_call(x: &FnCallExpr, pos: Position) -> Option<(String, usize, Form, Position)> {
    if x.is_operator_call() {
        return None;
    }
    if x.name.as_str() == FN_PTR && x.args.len() == 1 && x.namespace.is_empty() {
        if let Expr::StringConstant(name, _) = &x.args[0] {
            return Some((name.to_string(), 0, Form::Pointer, pos));
        }
    }
    let form = if !x.namespace.is_empty() {
        Form::Namespaced
    } else if x.capture_parent_scope {
        Form::Capturing
    } else {
        Form::Plain
    };
    Some((x.name.to_string(), x.args.len(), form, pos))
}

/// The function a constant function pointer names (Rhai folds `Fn("name")` into one); a
/// closure's own pointer is not a call.
fn pointer(value: &Dynamic) -> Option<String> {
    let name = value.read_lock::<rhai::FnPtr>()?.fn_name().to_string();
    (!name.starts_with("anon$")).then_some(name)
}

fn place(pos: Position) -> Option<(usize, usize)> {
    Some((pos.line()?, pos.position()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites(text: &str) -> Vec<(String, usize, Form, Option<String>)> {
        let ast = rhai::Engine::new_raw().compile(text).expect("compiles");
        let mut v: Vec<_> =
            call_sites(&ast).into_iter().map(|c| (c.name, c.args, c.form, c.within.map(|w| w.0))).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    #[test]
    fn calls_are_found_with_the_function_they_are_written_in() {
        let found = sites(
            "fn f(a, b) {\n  let g = |y| inner(y, 1);\n  a.meth(2) + plain!(b)\n}\nfn h() { Fn(\"f\") }\ntop(1, 2, 3);",
        );
        assert_eq!(
            found,
            vec![
                ("f".into(), 0, Form::Pointer, Some("h".into())),
                ("inner".into(), 2, Form::Plain, Some("f".into())),
                ("meth".into(), 2, Form::Method, Some("f".into())),
                ("plain".into(), 1, Form::Capturing, Some("f".into())),
                ("top".into(), 3, Form::Plain, None),
            ],
            "each call with its arguments, its form and the named function around it (operators left out)"
        );
    }
}
