"""Issues and pull requests as Markdown, for resources a client shows or attaches as they are."""

from __future__ import annotations

from datetime import datetime

from ._models import Comment, IssueDetail, PullDetail


def _day(when: datetime | None) -> str:
    return when.strftime("%Y-%m-%d") if when else "?"


def _facts(*pairs: tuple[str, str | None]) -> str:
    return " · ".join(f"{name}: {value}" for name, value in pairs if value)


def _comments(comments: list[Comment], total: int, more: bool) -> list[str]:
    lines = [f"## Comments ({total})", ""] if total else []
    for comment in comments:
        lines += [
            f"**@{comment.author or 'ghost'}** on {_day(comment.created_at)}:",
            "",
            (comment.body or "").strip(),
            "",
        ]
    if more:
        lines.append(f"_{total - len(comments)} more comments: call get_issue with the cursor to read them._")
    return lines


def render_issue(issue: IssueDetail) -> str:
    """The issue's title, facts, body and the comments it carries."""
    kind = "Pull request" if issue.is_pull_request else "Issue"
    lines = [
        f"# {issue.title} (#{issue.number})",
        "",
        _facts(
            (kind, issue.state + (f" ({issue.state_reason})" if issue.state_reason else "")),
            ("author", f"@{issue.author}" if issue.author else None),
            ("opened", _day(issue.created_at)),
            ("labels", ", ".join(issue.labels)),
            ("assignees", ", ".join(f"@{a}" for a in issue.assignees)),
            ("milestone", issue.milestone),
        ),
        issue.html_url,
        "",
        (issue.body or "_No description._").strip(),
        "",
    ]
    lines += _comments(issue.thread, issue.comment_count, issue.next_cursor is not None)
    return "\n".join(lines).rstrip() + "\n"


def render_pull(pull: PullDetail) -> str:
    """The pull request's title, facts, body and its changed files with patches."""
    state = "merged" if pull.merged else pull.state + (" (draft)" if pull.draft else "")
    lines = [
        f"# {pull.title} (#{pull.number})",
        "",
        _facts(
            ("Pull request", state),
            ("author", f"@{pull.author}" if pull.author else None),
            ("branches", f"{pull.head} → {pull.base}"),
            ("changes", f"+{pull.additions or 0} -{pull.deletions or 0} in {pull.changed_files or 0} files"),
            ("labels", ", ".join(pull.labels)),
            ("reviewers", ", ".join(f"@{r}" for r in pull.reviewers)),
        ),
        pull.html_url,
        "",
        (pull.body or "_No description._").strip(),
        "",
    ]
    if pull.files:
        lines += ["## Files", ""]
    for diff in pull.files:
        lines.append(f"### {diff.path} ({diff.status}, +{diff.additions} -{diff.deletions})")
        if diff.patch:
            cut = "\n… (patch cut)" if diff.patch_next_offset is not None else ""
            lines += ["```diff", diff.patch.rstrip("\n") + cut, "```"]
        lines.append("")
    if pull.next_cursor:
        lines.append("_More files: call get_pull_request with the cursor._")
    return "\n".join(lines).rstrip() + "\n"
