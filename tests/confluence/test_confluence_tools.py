"""Every tool against the fake site: what it sends (checked against the descriptions) and what it returns."""

from __future__ import annotations

import base64

import pytest
from confluence_harness import Harness

from mcpist.modules import Conflict, InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("search")
async def test_search_by_text_pages_through_cursors(cf: Harness) -> None:
    first = await cf.call("search", text='say "hi"', space="ENG", limit=20)
    assert first.cql == 'text ~ "say \\"hi\\"" AND space = "ENG"' and first.total == 30
    assert [h.title for h in first.items][:2] == ["Hit 0", "Hit 1"] and len(first.items) == 20
    hit = first.items[0]
    assert (hit.id, hit.space_key, hit.space) == ("1000", "ENG", "Engineering")
    assert hit.url == "https://acme.atlassian.net/wiki/spaces/ENG/pages/1000"
    rest = await cf.call("search", text='say "hi"', space="ENG", limit=20, cursor=first.next_cursor)
    assert [h.title for h in rest.items] == [f"Hit {i}" for i in range(20, 30)] and rest.next_cursor is None
    cql = await cf.call("search", cql='type=page AND label="adr"', limit=5)
    assert cql.cql == 'type=page AND label="adr"' and len(cql.items) == 5
    with pytest.raises(InvalidArgument):
        await cf.call("search", text="a", cql="b")


@covers("list_spaces", "list_pages_in_space")
async def test_spaces_and_their_pages_page_without_gaps(cf: Harness) -> None:
    cf.world.spaces = 60
    spaces = await cf.call("list_spaces", limit=55)
    assert len(spaces.items) == 55 and spaces.items[0].key == "ENG" and spaces.next_cursor
    more = await cf.call("list_spaces", limit=55, cursor=spaces.next_cursor)
    assert [s.id for s in more.items] == [str(9 + i) for i in range(55, 60)] and more.next_cursor is None
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        page = await cf.call("list_pages_in_space", space="ENG", limit=45, cursor=cursor)
        seen += [p.id for p in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [str(1000 + i) for i in range(120)]  # nothing skipped or repeated at page edges
    assert cf.sent("GET /spaces/{id}/pages")[0].path.endswith("/spaces/9/pages")
    first = (await cf.call("list_pages_in_space", space="9", limit=1)).items[0]
    assert first.url == "https://acme.atlassian.net/wiki/spaces/ENG/pages/1000/Page+000" and first.version == 1
    with pytest.raises(NotFound):
        await cf.call("list_pages_in_space", space="NOPE")


@covers("get_page")
async def test_get_page_as_markdown_storage_and_in_windows(cf: Harness) -> None:
    page = await cf.call("get_page", page_id="200")
    assert (page.title, page.version, page.format, page.truncated) == ("Plan", 4, "markdown", False)
    assert page.body.startswith("# Plan\n\nIntro **text**.\n\n## Goals")
    assert '<!-- confluence:<ac:structured-macro ac:name="info">' in page.body
    assert page.url == "https://acme.atlassian.net/wiki/spaces/ENG/pages/200/Plan"
    raw = await cf.call("get_page", page_id="200", format="storage")
    assert raw.body == cf.world.pages["200"]["body"]
    cf.world.pages["200"]["body"] = "".join(f"<p>paragraph {i} 日本語</p>" for i in range(2000))
    window = await cf.call("get_page", page_id="200", max_chars=1000)
    assert window.truncated and window.next_offset and len(window.body) <= 1000
    after = await cf.call("get_page", page_id="200", max_chars=1000, offset=window.next_offset)
    assert after.offset == window.next_offset and after.body.startswith("paragraph")


@covers("get_page_tree", "get_page_history")
async def test_tree_and_history(cf: Harness) -> None:
    tree = await cf.call("get_page_tree", page_id="200", limit=5)
    assert [(a.id, a.title) for a in tree.ancestors] == [("100", "Home")]
    assert [c.title for c in tree.children] == [f"Child {i}" for i in range(5)] and tree.next_cursor
    more = await cf.call("get_page_tree", page_id="200", limit=5, cursor=tree.next_cursor)
    assert [c.id for c in more.children] == ["505", "506"] and more.ancestors == []
    history = await cf.call("get_page_history", page_id="200")
    assert [v.number for v in history.items] == [4, 3, 2, 1] and history.items[0].message == "v4"


@covers("create_page")
async def test_create_page_converts_markdown(cf: Harness) -> None:
    made = await cf.call("create_page", space="ENG", title="New", body="# Hi\n\n- a\n- b", parent_id="200")
    assert (made.id, made.version, made.parent_id) == ("300", 1, "200")
    (sent,) = cf.sent("POST /pages")
    assert sent.json["spaceId"] == "9" and sent.json["parentId"] == "200"
    assert cf.world.pages["300"]["body"] == "<h1>Hi</h1><ul><li>a</li><li>b</li></ul>"


@covers("update_page")
async def test_update_page_writes_the_next_version(cf: Harness) -> None:
    done = await cf.call("update_page", page_id="200", version=4, body="Fresh *text*", message="edit")
    assert done.version == 5 and cf.world.pages["200"]["body"] == "<p>Fresh <em>text</em></p>"
    assert cf.world.puts[-1]["version"] == {"number": 5, "message": "edit"} and cf.world.puts[-1]["title"] == "Plan"
    renamed = await cf.call("update_page", page_id="200", version=5, title="Plan B")
    assert renamed.title == "Plan B" and cf.world.pages["200"]["body"] == "<p>Fresh <em>text</em></p>"


async def test_a_stale_version_is_a_conflict_naming_both(cf: Harness) -> None:
    with pytest.raises(Conflict) as caught:
        await cf.call("update_page", page_id="200", version=3, body="x")
    assert "version 4" in caught.value.message and "version 3" in caught.value.message
    assert cf.world.puts == []  # refused before writing
    cf.world.bumped_meanwhile = True  # someone saves between our read and our write: Confluence answers 409
    with pytest.raises(Conflict) as raced:
        await cf.call("update_page", page_id="200", version=4, body="x")
    assert raced.value.data["read_version"] == 4 and raced.value.data["attempted_version"] == 5


@covers("update_page_section")
async def test_update_page_section_replaces_one_section(cf: Harness) -> None:
    done = await cf.call("update_page_section", page_id="200", heading="goals", body="New **goal**.\n\n1. first")
    assert done.version == 5
    body = cf.world.pages["200"]["body"]
    assert "<h2>Goals</h2><p>New <strong>goal</strong>.</p><ol><li>first</li></ol><h2>Risks</h2>" in body
    assert "Old goal" not in body and '<ac:structured-macro ac:name="info">' in body
    with pytest.raises(NotFound):
        await cf.call("update_page_section", page_id="200", heading="Nope", body="x")
    with pytest.raises(Conflict):
        await cf.call("update_page_section", page_id="200", heading="Risks", body="x", version=4)


@covers("move_page", "delete_page")
async def test_move_and_delete(cf: Harness) -> None:
    moved = await cf.call("move_page", page_id="200", parent_id="100")
    assert moved.parent_id == "100" and cf.world.puts[-1]["parentId"] == "100"
    assert cf.world.puts[-1]["body"]["value"] == cf.world.pages["200"]["body"]
    gone = await cf.call("delete_page", page_id="200")
    assert gone.status == "trashed" and "200" not in cf.world.pages
    purged = await cf.call("delete_page", page_id="100", purge=True)
    assert purged.status == "purged" and cf.sent("DELETE /pages/{id}")[-1].params == {"purge": "true"}


@covers("get_comments", "add_comment")
async def test_comments_footer_then_inline(cf: Harness) -> None:
    first = await cf.call("get_comments", page_id="200", limit=2)
    assert [(c.id, c.kind) for c in first.items] == [("700", "footer"), ("701", "footer")]
    assert first.items[0].body == "*footer 0*\n"
    rest = await cf.call("get_comments", page_id="200", limit=10, cursor=first.next_cursor)
    assert [(c.id, c.kind) for c in rest.items] == [("702", "footer"), ("800", "inline")]
    assert rest.items[1].selection == "Old goal" and rest.items[1].resolution == "open" and rest.next_cursor is None
    inline = await cf.call("get_comments", page_id="200", kind="inline", format="storage")
    assert inline.items[0].body == "<p><em>inline 0</em></p>"
    added = await cf.call("add_comment", page_id="200", body="Looks **good**")
    assert added.body == "Looks **good**\n" and added.kind == "footer"
    reply = await cf.call("add_comment", page_id="200", body="<p>ok</p>", format="storage", reply_to="700")
    assert reply.body == "<p>ok</p>"


@covers("manage_labels")
async def test_manage_labels(cf: Harness) -> None:
    labels = await cf.call("manage_labels", page_id="200", add=["ADR", "q3"], remove=["draft"])
    assert labels.labels == ["adr", "q3"]


@covers("list_attachments", "upload_attachment")
async def test_attachments(cf: Harness) -> None:
    found = await cf.call("list_attachments", page_id="200")
    (att,) = found.items
    assert (att.title, att.size, att.version) == ("diagram.png", 2048, 2)
    assert att.download_url == "https://acme.atlassian.net/wiki/download/attachments/200/diagram.png"
    data = base64.b64encode(b"hello world").decode()
    up = await cf.call(
        "upload_attachment",
        page_id="200",
        filename="notes.txt",
        content_base64=data,
        media_type="text/plain",
        comment="c",
    )
    assert (up.id, up.size, up.media_type) == ("att9", 11, "text/plain")
    (sent,) = cf.world.uploads
    assert sent.method == "PUT" and sent.headers["X-Atlassian-Token"] == "no-check"
    assert sent.url.path == "/wiki/rest/api/content/200/child/attachment" and b"hello world" in sent.content
    with pytest.raises(InvalidArgument):
        await cf.call("upload_attachment", page_id="200", filename="x.bin", content_base64="not base64!")


async def test_a_write_goes_to_the_page_asked_for_even_when_its_answer_omits_the_id(cf: Harness) -> None:
    cf.world.page_without_id = True
    await cf.call("move_page", page_id="200", parent_id="100")
    assert cf.world.puts[-1]["id"] == "200"  # was "None", sent to PUT /pages/None
