// The body a call runs when its callee is written in the same file: a function declaration or a const
// arrow (`delayFor(n)`), a method of the enclosing class (`this.delayFor(n)`), or a static method of a
// class of the file (`Retry.delayFor(n)`). Calls into other files or packages stay unknown.
import { ts } from './typescript';
import { ancestorWhere, declarationOf, isFunctionOrArrow, nameOf, unwrap, type Node } from './nodes';

type Body = ts.FunctionLikeDeclaration;

function methodNamed(cls: ts.ClassLikeDeclaration | undefined, name: string, isStatic: boolean): Body | undefined {
  return cls?.members.find((m): m is ts.MethodDeclaration =>
    ts.isMethodDeclaration(m) && nameOf(m) === name && !!m.body &&
    (m.modifiers ?? []).some((x) => x.kind === ts.SyntaxKind.StaticKeyword) === isStatic);
}

export function localCallee(call: ts.CallExpression): Body | undefined {
  const callee = unwrap(call.expression);
  const file = call.getSourceFile();
  if (ts.isIdentifier(callee)) {
    const decl = declarationOf(callee);
    const init = decl && ts.isVariableDeclaration(decl) && decl.initializer ? unwrap(decl.initializer) : undefined;
    if (init && isFunctionOrArrow(init)) return init as Body;
    return file.statements.find((s): s is ts.FunctionDeclaration => ts.isFunctionDeclaration(s) && s.name?.text === callee.text && !!s.body);
  }
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const owner = unwrap(callee.expression);
  const name = callee.name.text;
  if (owner.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = ancestorWhere<ts.ClassLikeDeclaration>(call, (a: Node) => ts.isClassDeclaration(a) || ts.isClassExpression(a));
    // In a static method `this` is the class: `this.pause(ms)` calls a static method.
    const member = cls && ancestorWhere(call, (a: Node) => a.parent === cls);
    const inStatic = !!member && ts.canHaveModifiers(member) && (ts.getModifiers(member) ?? []).some((x) => x.kind === ts.SyntaxKind.StaticKeyword);
    return methodNamed(cls, name, inStatic);
  }
  if (!ts.isIdentifier(owner)) return undefined;
  const cls = file.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === owner.text);
  return methodNamed(cls, name, true);
}
