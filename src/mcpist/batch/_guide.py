"""What an LLM reads about `batch`: a one-paragraph description and the full guide."""

__all__ = ["DESCRIPTION", "GUIDE"]

DESCRIPTION = (
    "Run many tool calls in one request. tasks: JSONL, one task a line: "
    '{"id","module","tool","params","after":id|[ids],"output":true,"account"}. '
    "A task runs once its after tasks succeed, others in parallel; "
    '"${id.jmespath}" in params inserts an earlier output. Only output:true results return. '
    'Syntax: get_module_schema("batch").'
)

GUIDE = """\
# batch

`batch({"tasks": "<JSONL>"})`: one JSON task per line.

| field | meaning |
|---|---|
| `id` | required, unique; letters, digits, `_` |
| `module`, `tool` | required, as for `call` |
| `params` | object; strings may hold `${...}` |
| `after` | id or list of ids to wait for |
| `output` | `true`: return the result (default false) |
| `account` | which connected account to use |

A task starts as soon as all its `after` tasks succeed; independent tasks run in
parallel. A failure skips only the tasks that depend on it; nothing is rolled back.
The answer: `results` (output:true tasks), `failed` (code, message, data),
`skipped` (`blocked_by`), `omitted` (outputs past the size limit), `summary`.
The batch is refused before anything runs if a line is invalid, an id is unknown
or repeated, `after` forms a cycle, or an expression is bad.

## References
`${expr}` is a JMESPath expression over the outputs of the task's own `after`
tasks; its first name is a task id.
- `"${search.results[0].id}"`: the whole string becomes the value, of any type
- `"Re: ${page.title} (${page.size})"`: inside text, strings as they are, others as JSON
- `$${` writes a literal `${`
- A null result fails the task: add a default, `${page.due || 'none'}`

## Deterministic operations
JMESPath strings are `'text'`; other literals `` `3` ``, `` `true` ``.
- where: `${s.items[?status == 'open']}`, ``${s.items[?size > `10` && !archived]}``
- sort_by: `${sort_by(s.items, &created)}`, descending `${sort_by_desc(s.items, &created)}`
- pluck: `${pluck(s.items, 'id', 'title')}` (missing fields become null)
- join: `${hash_join(s.items, u.users, 'owner_id', 'id')}`: inner join on
  left.owner_id == right.id, each match merged into one object (right side wins);
  `hash_join(a, b, 'id')` when both use `id`
- format_as: `${format_as(s.items, 'markdown')}`; also `'json'`, `'csv'`, `'lines'`
  (one element per line); rows are objects, columns the union of their keys
- unique: `${unique(s.items[].tag)}`
- group_by: `${group_by(s.items, &status)}` gives `{"open": [...], "done": [...]}`
- index_by: `${index_by(u.users, 'id')}` gives `{"u1": {...}}`

Key arguments take `&expr` or a field name: `&owner.id`, `'id'`. Chain freely:
`${format_as(pluck(sort_by_desc(s.items[?status == 'open'], &due), 'title', 'due'), 'csv')}`.
Built-ins work too: `length`, `max_by`, `join(', ', a)`, `keys`, `merge`,
`contains`, `starts_with`, `[:5]`, `a[].{id: id, n: name}`.

## Example
```jsonl
{"id":"s","module":"memory","tool":"search","params":{"namespace":"notes","query":"会議メモ","k":5}}
{"id":"g","module":"memory","tool":"relation.graph","params":{"start_memo_id":"${s.items[0].memo_id}","max_depth":2},"after":"s","output":true}
{"id":"d","module":"memory","tool":"save","params":{"namespace":"digest","content":"${format_as(pluck(s.items, 'title', 'score'), 'csv')}"},"after":"s"}
```
Conditions and loops are not part of batch: look at the results and send another batch.
"""  # noqa: E501
