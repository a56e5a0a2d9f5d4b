// One ESLint rule: a file in one room of src/ may import only from the rooms docs/architecture.md
// allows it. A room is the first folder under src/ ("(root)" for src/*.ts). The table lives in
// eslint.config.mjs beside the rule's use, and docs/architecture.md explains it.
import path from 'node:path';

const SRC = path.resolve(import.meta.dirname, '../../src');

function roomOf(file) {
  const rel = path.relative(SRC, file);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return null;
  const parts = rel.split(path.sep);
  return parts.length > 1 ? parts[0] : '(root)';
}

/** @type {import('eslint').Rule.RuleModule} */
export const roomImports = {
  meta: {
    type: 'problem',
    docs: { description: 'a room of src/ imports only from the rooms it is allowed to' },
    schema: [{ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } }],
    messages: {
      forbidden:
        "room '{{from}}' may not import from room '{{to}}' (allowed: {{allowed}}; see docs/architecture.md)",
      unknown: "room '{{room}}' is not in the room table of eslint.config.mjs (docs/architecture.md)",
    },
  },
  create(context) {
    const allowedBy = context.options[0] ?? {};
    const file = context.filename;
    const from = roomOf(file);
    if (from === null || /\.spec(-support)?\.ts$/.test(file)) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const to = roomOf(path.resolve(path.dirname(file), source));
      if (to === null || to === from) return;
      const allowed = allowedBy[from];
      if (!allowed) {
        context.report({ node, messageId: 'unknown', data: { room: from } });
        return;
      }
      if (!allowed.includes(to)) {
        context.report({
          node,
          messageId: 'forbidden',
          data: { from, to, allowed: allowed.join(', ') || 'none' },
        });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
