#!/usr/bin/env python3
"""Writes the import fixtures (hand-made exports in the apps' formats). Run from this folder."""
import base64, json, os

def node(id, parent, children, role=None, parts=None, t=None, content=None, **extra):
    msg = None
    if role is not None:
        msg = {"id": id, "author": {"role": role, "name": extra.pop("name", None), "metadata": {}},
               "create_time": t, "update_time": None,
               "content": content or {"content_type": "text", "parts": parts},
               "status": "finished_successfully", "end_turn": True, "weight": extra.pop("weight", 1.0),
               "metadata": extra.pop("metadata", {}), "recipient": extra.pop("recipient", "all")}
    return {"id": id, "message": msg, "parent": parent, "children": children}

T = 1700000000.0
lisbon = {
    "title": "Lisbon trip", "create_time": T, "update_time": T + 100, "conversation_id": "c0ffee00-0000-4000-8000-00000000000a",
    "id": "c0ffee00-0000-4000-8000-00000000000a", "current_node": "a7", "default_model_slug": "gpt-4o",
    "mapping": {
        "root": node("root", None, ["sys"]),
        "sys": node("sys", "root", ["ci"], "system", [""], None, weight=0.0),
        "ci": node("ci", "sys", ["u1"], "user", ["Be brief."], T, metadata={"is_user_system_message": True, "is_visually_hidden_from_conversation": True}),
        "u1": node("u1", "ci", ["a1-old", "a1"], "user", ["Three things to see in Lisbon?"], T + 1),
        "a1-old": node("a1-old", "u1", [], "assistant", ["An old answer that was regenerated."], T + 2, metadata={"model_slug": "gpt-4"}),
        "a1": node("a1", "u1", ["u2"], "assistant", ["Belém Tower, Alfama, and the LX Factory."], T + 3, metadata={"model_slug": "gpt-4o"}),
        "u2": node("u2", "a1", ["e1", "a2"], "user", None, T + 4, content={"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-abc123", "size_bytes": 10, "width": 1, "height": 1},
            "What is in this photo?"]}),
        "e1": node("e1", "u2", [], "user", ["An edit that went nowhere."], T + 4.5),
        "a2": node("a2", "u2", ["code"], "assistant", ["A tram. Let me count the windows."], T + 5),
        "code": node("code", "a2", ["out"], "assistant", None, T + 6, content={"content_type": "code", "language": "python", "text": "print(6 * 4)"}),
        "out": node("out", "code", ["browse"], "tool", None, T + 7, name="python", content={"content_type": "execution_output", "text": "24"}),
        "browse": node("browse", "out", ["hidden"], "tool", None, T + 8, name="browser", content={"content_type": "tether_browsing_display", "result": "Lisbon trams: line 28.", "summary": None}),
        "hidden": node("hidden", "browse", ["empty"], "assistant", ["internal"], T + 9, metadata={"is_visually_hidden_from_conversation": True}),
        "empty": node("empty", "hidden", ["future"], "assistant", [""], T + 10),
        "future": node("future", "empty", ["a7"], "assistant", None, T + 11, content={"content_type": "some_future_type", "payload": {"x": 1}}),
        "a7": node("a7", "future", [], "assistant", ["Take tram 28."], None),
    },
}
broken = {
    "title": "Broken tree", "create_time": T + 200, "update_time": None, "id": "broken-1", "current_node": "b3", "default_model_slug": None,
    "mapping": {
        "b2": node("b2", "gone", ["b3"], "user", ["My parent is missing."], T + 201),
        "b3": node("b3", "b2", [], "assistant", ["Still here."], T + 202),
    },
}
cycle = {
    "title": "Cycle", "create_time": None, "update_time": None, "id": "cycle-1", "current_node": "x1",
    "mapping": {
        "x1": node("x1", "x2", ["x2"], "assistant", ["Second."], T + 301),
        "x2": node("x2", "x1", ["x1"], "user", ["First."], T + 300),
    },
}
no_current = {
    "title": None, "create_time": T + 400, "update_time": None, "id": "nocurrent-1", "current_node": None,
    "mapping": {
        "r": node("r", None, ["q"]),
        "q": node("q", "r", ["p1", "p2"], "user", ["Pick one"], T + 401),
        "p1": node("p1", "q", [], "assistant", ["Older leaf"], T + 402),
        "p2": node("p2", "q", [], "assistant", ["Newer leaf"], T + 403),
    },
}
damaged = {"title": "Damaged", "id": "damaged-1", "mapping": "not a mapping", "current_node": "z"}

def write(path, value):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)

write("chatgpt/conversations.json", [lisbon, broken, cycle, no_current, damaged])

# A newer export: two more messages on the Lisbon chat, one new conversation.
newer = json.loads(json.dumps(lisbon))
newer["mapping"]["a7"]["children"] = ["u8"]
newer["mapping"]["u8"] = node("u8", "a7", ["a8"], "user", ["And for dinner?"], T + 20)
newer["mapping"]["a8"] = node("a8", "u8", [], "assistant", ["Try a tasca in Alfama."], T + 21)
newer["current_node"] = "a8"
fresh = {"title": "New chat", "create_time": T + 500, "update_time": None, "id": "new-1", "current_node": "n2",
         "mapping": {"n1": node("n1", None, ["n2"], "user", ["Hello"], T + 501), "n2": node("n2", "n1", [], "assistant", ["Hi!"], T + 502)}}
write("chatgpt-newer/conversations.json", [newer, broken, cycle, no_current, fresh])

# A sharded export, with a manifest naming the shards (and one hostile path, never read).
write("chatgpt-sharded/conversations-000.json", [lisbon])
write("chatgpt-sharded/conversations-001.json", [fresh])
write("chatgpt-sharded/export_manifest.json", {"export_files": [{"path": "conversations-000.json"}, {"path": "conversations-001.json"},
                                                              {"path": "../../etc/passwd"}]})

claude = [{
    "uuid": "5e1f0000-0000-4000-8000-000000000001", "name": "Fox facts", "created_at": "2024-03-01T12:00:00.123456Z",
    "updated_at": "2024-03-01T12:05:00Z", "account": {"uuid": "acct"},
    "chat_messages": [
        {"uuid": "m1", "sender": "human", "text": "Tell me about foxes.", "content": [{"type": "text", "text": "Tell me about foxes."}],
         "created_at": "2024-03-01T12:00:01.000000Z", "attachments": [{"file_name": "notes.txt", "file_size": 18, "file_type": "txt",
         "extracted_content": "Foxes eat berries."}], "files": [{"file_name": "fox.jpg"}]},
        {"uuid": "m2", "sender": "assistant", "text": "", "created_at": "2024-03-01T14:00:02+02:00", "attachments": [], "files": [],
         "content": [{"type": "thinking", "thinking": "They want facts."},
                     {"type": "tool_use", "name": "web_search", "input": {"query": "fox facts"}},
                     {"type": "tool_result", "name": "web_search", "content": [{"type": "text", "text": "Foxes are canids."}]},
                     {"type": "text", "text": "Foxes are small canids."},
                     {"type": "future_block", "data": 1}]},
        {"uuid": "m3", "sender": "human", "text": "", "content": [], "created_at": "2024-03-01T12:00:03Z"},
        {"uuid": "m4", "sender": "human", "text": "Thanks!", "created_at": "2024-03-01T12:00:04Z"},
    ]}, {"uuid": "5e1f0000-0000-4000-8000-000000000002", "name": "", "created_at": "2024-03-02T08:00:00Z", "updated_at": "2024-03-02T08:00:00Z",
         "chat_messages": []}]
write("claude/conversations.json", claude)

write("storybook/story.json", {"title": "The Brave Little Fox", "moral": "Courage grows when shared.",
      "story": ["A little fox lived in the woods.", "She was afraid of the dark.", "One night an owl came by.",
                "Together they watched the stars.", "She was never afraid again."],
      "imagePrompts": ["a fox in the woods, watercolor", "a fox and an owl under the stars, watercolor"]})

png = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000030000000208020000001216f14d0000001049444154789c63fccf00054c3006030013290103f0d807840000000049454e44ae426082")
write("dalle/response.json", {"created": 1700000000, "data": [
    {"b64_json": base64.b64encode(png).decode(), "revised_prompt": "A tiny red square, pixel art"},
    {"url": "https://oaidalleapiprodscus.blob.core.windows.net/private/img.png", "revised_prompt": "Another"}]})

write("bad/not-an-export.json", {"hello": "world"})
write("bad/wrong-types.json", [1, "two", {"mapping": 3}])
with open("bad/truncated.json", "w") as f:
    f.write('[{"title": "cut off", "mapping": {')

# An export folder with pictures: a photo the user sent, a DALL·E picture, the same photo again
# under a user folder (one image record), a missing file, a file that is not an image.
gif = bytes.fromhex("4749463837610500040081000000ff000000000000000000002c00000000050004000008090001081c48b060c180003b")
os.makedirs("chatgpt-images/dalle-generations", exist_ok=True)
os.makedirs("chatgpt-images/user-abc", exist_ok=True)
open("chatgpt-images/file-img1-photo.png", "wb").write(png)
open("chatgpt-images/user-abc/file_0001-again.png", "wb").write(png)
open("chatgpt-images/dalle-generations/file-dalle1-fox.gif", "wb").write(gif)
open("chatgpt-images/file-doc1-notes.txt", "w").write("not a picture")
def pointer(p, **meta):
    return {"content_type": "image_asset_pointer", "asset_pointer": p, "size_bytes": 1, "width": 1, "height": 1, "metadata": meta or None}
pictures = {"title": "Pictures", "create_time": T + 600, "id": "pictures-1", "current_node": "p5",
    "mapping": {
        "p1": node("p1", None, ["p2"], "user", None, T + 601, content={"content_type": "multimodal_text", "parts": [
            pointer("file-service://file-img1"), "Draw a fox like this.", pointer("file-service://file-gone"), pointer("file-service://file-doc1")]}),
        "p2": node("p2", "p1", ["p3"], "assistant", None, T + 602, recipient="dalle.text2im",
                   content={"content_type": "code", "language": "json", "text": "{\"prompt\": \"a red fox\"}"}),
        "p3": node("p3", "p2", ["p4"], "tool", None, T + 603, name="dalle.text2im", content={"content_type": "multimodal_text", "parts": [
            pointer("file-service://file-dalle1", dalle={"prompt": "a red fox, watercolor", "gen_id": "g1"})]}),
        "p4": node("p4", "p3", ["p5"], "user", None, T + 604, content={"content_type": "multimodal_text", "parts": [
            pointer("sediment://file_0001"), pointer("file-service://../../etc/passwd"), "Same photo again."]}),
        "p5": node("p5", "p4", [], "assistant", ["Nice fox."], T + 605),
    }}
write("chatgpt-images/conversations.json", [pictures])

# The same export zipped, as ChatGPT sends it (DEFLATE, and one stored entry), and a truncated
# copy. (An archive with an entry that climbs out, `../x` or `/x`, is refused whole: see
# make-storybook-fixtures.py and the zip tests.)
import zipfile
with zipfile.ZipFile("chatgpt-export.zip", "w") as z:
    z.write("chatgpt-images/conversations.json", "conversations.json", compress_type=zipfile.ZIP_DEFLATED)
    z.write("chatgpt-images/file-img1-photo.png", "file-img1-photo.png", compress_type=zipfile.ZIP_STORED)
    z.write("chatgpt-images/dalle-generations/file-dalle1-fox.gif", "dalle-generations/file-dalle1-fox.gif", compress_type=zipfile.ZIP_DEFLATED)
    z.write("chatgpt-images/user-abc/file_0001-again.png", "user-abc/file_0001-again.png", compress_type=zipfile.ZIP_DEFLATED)
    z.writestr("chat.html", "<html>" + "<p>hello</p>" * 500 + "</html>", compress_type=zipfile.ZIP_DEFLATED)
data = open("chatgpt-export.zip", "rb").read()
open("bad/truncated.zip", "wb").write(data[: len(data) // 2])

# Newer exports name uploads `file-<id>.dat` (no hint of the type: the bytes say it), and may
# list the names in conversation_asset_file_names.json (pointer or file id -> file name); a
# listed name that climbs out of the export is never read.
os.makedirs("chatgpt-dat", exist_ok=True)
open("chatgpt-dat/file-dat1.dat", "wb").write(png)
open("chatgpt-dat/upload-0002.dat", "wb").write(gif)
write("chatgpt-dat/conversation_asset_file_names.json", {"sediment://file_0002": "upload-0002.dat", "file-evil": "../chatgpt-images/file-img1-photo.png"})
dat = {"title": "Dat files", "create_time": T + 700, "id": "dat-1", "current_node": "d2",
    "mapping": {
        "d1": node("d1", None, ["d2"], "user", None, T + 701, content={"content_type": "multimodal_text", "parts": [
            pointer("file-service://file-dat1"), pointer("sediment://file_0002"), pointer("file-service://file-evil"), "Two uploads."]}),
        "d2": node("d2", "d1", [], "assistant", ["Got both."], T + 702),
    }}
write("chatgpt-dat/conversations.json", [dat])

# A 2026 export, as ChatGPT writes them now: custom instructions (user_editable_context),
# a voice turn (audio_transcription beside the recording's pointer), reasoning (thoughts and
# reasoning_recap) before an o3 answer, web search with a quote and a page, a tool error,
# a DALL·E request and its picture (sediment:// pointer, file_<id>-<uuid>.png), a canvas
# document and its update, and a content type no version knows yet.
T26 = 1767225600.0  # 2026-01-01
os.makedirs("chatgpt-2026", exist_ok=True)
open("chatgpt-2026/file_00000000a1b2c3d4-5f6e7d8c-0000-4000-8000-000000000001.png", "wb").write(png)
def msg(id, parent, children, role, content, t, **extra):
    return node(id, parent, children, role, None, t, content=content, **extra)
modern = {"title": "Voice, tools and a fox", "create_time": T26, "update_time": T26 + 3600,
    "conversation_id": "6a000000-0000-4000-8000-000000002026", "id": "6a000000-0000-4000-8000-000000002026",
    "current_node": "z9", "default_model_slug": "o3",
    "mapping": {
        "root": node("root", None, ["ctx"]),
        "ctx": msg("ctx", "root", ["v1"], "user", {"content_type": "user_editable_context",
            "user_profile": "I am a biologist in Porto.", "user_instructions": "Answer in metric units."}, None,
            metadata={"is_user_system_message": True, "is_visually_hidden_from_conversation": True}),
        "v1": msg("v1", "ctx", ["v2"], "user", {"content_type": "multimodal_text", "parts": [
            {"content_type": "audio_transcription", "text": "How fast can a red fox run?", "direction": "in"},
            {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_voice1", "format": "wav", "size_bytes": 9000}]}, T26 + 10),
        "v2": msg("v2", "v1", ["th"], "assistant", {"content_type": "multimodal_text", "parts": [
            {"content_type": "audio_transcription", "text": "About fifty kilometres an hour.", "direction": "out"},
            {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_voice2", "format": "wav"}]}, T26 + 11),
        "th": msg("th", "v2", ["rc"], "assistant", {"content_type": "thoughts", "thoughts": [
            {"summary": "Checking sources", "content": "Red foxes reach 50 km/h in short bursts.", "finished": True}],
            "source_analysis_msg_id": "x"}, T26 + 20),
        "rc": msg("rc", "th", ["s1"], "assistant", {"content_type": "reasoning_recap", "content": "Thought for 8 seconds"}, T26 + 21),
        "s1": msg("s1", "rc", ["s2"], "assistant", {"content_type": "code", "language": "unknown",
            "text": "{\"search_query\": [{\"q\": \"red fox top speed\", \"recency\": 30}]}"}, T26 + 22, recipient="web.run"),
        "s2": msg("s2", "s1", ["q1"], "tool", {"content_type": "sonic_webpage", "url": "https://example.org/fox",
            "domain": "example.org", "title": "Red fox", "text": "The red fox can run at 50 km/h.", "snippet": "50 km/h"}, T26 + 23, name="web.run"),
        "q1": msg("q1", "s2", ["er"], "tool", {"content_type": "tether_quote", "url": "https://example.org/fox",
            "domain": "example.org", "text": "Foxes are fast.", "title": "Red fox"}, T26 + 24, name="web.run"),
        "er": msg("er", "q1", ["a1"], "tool", {"content_type": "system_error", "name": "tool_error",
            "text": "Error: the page could not be opened."}, T26 + 25, name="web.run"),
        "a1": msg("a1", "er", ["u2"], "assistant", {"content_type": "text", "parts": ["A red fox runs at up to 50 km/h."]}, T26 + 30,
            metadata={"model_slug": "o3"}),
        "u2": msg("u2", "a1", ["d1"], "user", {"content_type": "text", "parts": ["Draw one running."]}, T26 + 40),
        "d1": msg("d1", "u2", ["d2"], "assistant", {"content_type": "code", "language": "json",
            "text": "{\"prompt\": \"a red fox running through snow, watercolor\", \"size\": \"1024x1024\"}"}, T26 + 41, recipient="dalle.text2im"),
        "d2": msg("d2", "d1", ["c1"], "tool", {"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_00000000a1b2c3d4", "size_bytes": 70,
             "width": 3, "height": 2, "metadata": {"dalle": {"gen_id": "g26", "prompt": "A red fox running through deep snow, watercolor", "seed": 1}}}]},
            T26 + 42, name="dalle.text2im"),
        "c1": msg("c1", "d2", ["c2"], "assistant", {"content_type": "code", "language": "json",
            "text": json.dumps({"name": "fox_notes", "type": "document", "content": "# Fox notes\nTop speed: 50 km/h."})}, T26 + 50,
            recipient="canmore.create_textdoc"),
        "c2": msg("c2", "c1", ["x1"], "assistant", {"content_type": "code", "language": "json",
            "text": json.dumps({"updates": [{"pattern": ".*", "multiple": True, "replacement": "# Fox notes\nTop speed: 50 km/h; they hunt mice."}]})},
            T26 + 51, recipient="canmore.update_textdoc"),
        "x1": msg("x1", "c2", ["z9"], "assistant", {"content_type": "future_widget", "title": "Fox map", "payload": {"lat": 41.1}}, T26 + 52),
        "z9": msg("z9", "x1", [], "assistant", {"content_type": "text", "parts": ["Here is your fox."]}, T26 + 60),
    }}
# Custom instructions as 2023 exports carry them: a hidden system message whose metadata holds
# user_context_message_data (its parts empty).
older = {"title": "An older chat", "create_time": T26 - 86400 * 30, "update_time": T26 - 86400 * 29, "id": "6a000000-0000-4000-8000-000000002025",
    "current_node": "o2", "mapping": {
        "o0": node("o0", None, ["o1"], "system", [""], None, metadata={"is_user_system_message": True,
            "user_context_message_data": {"about_user_message": "I live in Lisbon.", "about_model_message": "Be playful."}}),
        "o1": node("o1", "o0", ["o2"], "user", ["Hello from December."], T26 - 86400 * 30),
        "o2": node("o2", "o1", [], "assistant", ["Hello!"], T26 - 86400 * 30 + 5)}}
write("chatgpt-2026/conversations.json", [older, modern])

# One saved conversation (an exporter extension or the app's API gives one object, not a list).
write("chatgpt-single/conversation.json", lisbon)

# A Claude export with branches: m3 was retried (m3b on the main path, m3 kept), and the
# human edited m2 into m2b; current_leaf_message_uuid names the end of the main path.
# Reasoning (thinking) and an artifact; and one conversation saved alone.
root = "00000000-0000-4000-8000-000000000000"
claude_branches = {
    "uuid": "5e1f0000-0000-4000-8000-0000000000b1", "name": "Branching", "created_at": "2025-06-01T09:00:00Z",
    "updated_at": "2025-06-01T09:30:00Z", "current_leaf_message_uuid": "m4",
    "chat_messages": [
        {"uuid": "m1", "parent_message_uuid": root, "sender": "human", "text": "Write a haiku about foxes.",
         "content": [{"type": "text", "text": "Write a haiku about foxes."}], "created_at": "2025-06-01T09:00:01Z"},
        {"uuid": "m2", "parent_message_uuid": "m1", "sender": "assistant", "text": "",
         "content": [{"type": "thinking", "thinking": "Five, seven, five syllables."},
                     {"type": "text", "text": "Red fox in the snow"}], "created_at": "2025-06-01T09:00:02Z"},
        {"uuid": "m3", "parent_message_uuid": "m2", "sender": "human", "text": "Another?", "content": [], "created_at": "2025-06-01T09:01:00Z"},
        {"uuid": "m3a", "parent_message_uuid": "m3", "sender": "assistant", "text": "A first retry.", "content": [], "created_at": "2025-06-01T09:01:01Z"},
        {"uuid": "m3b", "parent_message_uuid": "m3", "sender": "assistant", "text": "",
         "content": [{"type": "tool_use", "name": "artifacts", "input": {"id": "haiku", "type": "text/markdown", "title": "Fox haiku",
                                                                        "command": "create", "content": "Quiet paws on frost"}}],
         "created_at": "2025-06-01T09:01:02Z"},
        {"uuid": "m4", "parent_message_uuid": "m3b", "sender": "human", "text": "Lovely.", "content": [], "created_at": "2025-06-01T09:02:00Z"},
        {"uuid": "m2b", "parent_message_uuid": "m1", "sender": "assistant", "text": "An answer on another branch.", "content": [],
         "created_at": "2025-06-01T09:00:30Z"},
    ]}
write("claude-branches/conversations.json", [claude_branches])
write("claude-single/conversation.json", claude[0])

# Tools as 2023-2024 exports write them: code run by the python tool and its output, a search
# by the browsing tool (`browser` with a call in its own syntax, `browser.search` with JSON
# arguments) and the page it showed, a canvas document of code and comments on it.
T24 = 1715000000.0  # 2024-05-06
tools = {"title": "Code, search and a canvas", "create_time": T24, "update_time": T24 + 120,
    "id": "6a000000-0000-4000-8000-000000002024", "current_node": "t9", "default_model_slug": "gpt-4o",
    "mapping": {
        "root": node("root", None, ["t1"]),
        "t1": node("t1", "root", ["t2"], "user", ["How fast is a red fox in metres per second?"], T24 + 1),
        "t2": msg("t2", "t1", ["t3"], "assistant", {"content_type": "code", "language": "unknown",
            "text": "speed_kmh = 50\nprint(round(speed_kmh / 3.6, 1))"}, T24 + 2, recipient="python"),
        "t3": msg("t3", "t2", ["t4"], "tool", {"content_type": "execution_output", "text": "13.9"}, T24 + 3, name="python"),
        "t4": msg("t4", "t3", ["t5"], "assistant", {"content_type": "code", "language": "unknown",
            "text": "search(\"red fox top speed source\")"}, T24 + 4, recipient="browser"),
        "t5": msg("t5", "t4", ["t6"], "tool", {"content_type": "tether_browsing_display",
            "result": "# 【0†Red fox†example.org】\nThe red fox reaches 50 km/h.", "summary": None}, T24 + 5, name="browser"),
        "t6": msg("t6", "t5", ["t7"], "assistant", {"content_type": "code", "language": "json",
            "text": json.dumps({"query": "red fox sprint distance", "recency_days": 365})}, T24 + 6, recipient="browser.search"),
        "t7": msg("t7", "t6", ["t8"], "assistant", {"content_type": "code", "language": "json",
            "text": json.dumps({"name": "fox_speed", "type": "code/python", "content": "def metres_per_second(kmh):\n    return kmh / 3.6"})},
            T24 + 7, recipient="canmore.create_textdoc"),
        "t8": msg("t8", "t7", ["t9"], "assistant", {"content_type": "code", "language": "json",
            "text": json.dumps({"comments": [{"pattern": "3.6", "comment": "Name this constant."}]})}, T24 + 8,
            recipient="canmore.comment_textdoc"),
        "t9": msg("t9", "t8", [], "assistant", {"content_type": "text", "parts": ["About 13.9 m/s."]}, T24 + 9),
    }}
write("chatgpt-tools/conversations.json", [tools])
