/**
 * SQLite's query compiler with `in` lists of few lengths. `where id in (?, ?, ?)` is another SQL
 * text, so another compiled statement in the statement cache (sqlite-statements.ts), for each
 * length of the list; a list longer than EXACT_LIST_MAX is written padded to the next power of
 * two, repeating its last value, which changes neither `in` nor `not in`. Other nodes compile as Kysely compiles them, at no extra cost.
 */
import { BinaryOperationNode, OperatorNode, PrimitiveValueListNode, SqliteQueryCompiler } from "kysely";

/**
 * Lists and multi-row inserts up to this length keep their exact size; longer ones are cut or
 * padded to powers of two. SQLite compiles one statement per distinct SQL text, and each length
 * of a list is another text: without this, a list of every length up to LIST_CHUNK could sit in
 * the statement cache (sqlite-statements.ts), a long one taking hundreds of KiB of native memory.
 */
export const EXACT_LIST_MAX = 8;

/**
 * The list padded to the next power of two by repeating its last value, when it is longer than
 * EXACT_LIST_MAX: the same members for `in` and `not in`, and one SQL text for many lengths.
 */
export function paddedList<T>(values: readonly T[]): readonly T[] {
  if (values.length <= EXACT_LIST_MAX) return values;
  const size = 2 ** Math.ceil(Math.log2(values.length));
  if (size === values.length) return values;
  const out = values.slice();
  const last = values[values.length - 1];
  while (out.length < size) out.push(last);
  return out;
}

export class InListBucketsCompiler extends SqliteQueryCompiler {
  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    super.visitBinaryOperation(padded(node));
  }
}

function padded(node: BinaryOperationNode): BinaryOperationNode {
  const list = node.rightOperand;
  if (!PrimitiveValueListNode.is(list) || !OperatorNode.is(node.operator)) return node;
  if (node.operator.operator !== "in" && node.operator.operator !== "not in") return node;
  const values = paddedList(list.values);
  return values === list.values ? node : BinaryOperationNode.create(node.leftOperand, node.operator, PrimitiveValueListNode.create(values));
}
