"""The tools of our eight test upstream servers: realistic names, descriptions and parameters.

Each tool is (name, description, {param: (json type, description, required)}). The servers
(tests/gateway/upstream_server.py) answer any call with its arguments echoed; the golden
tool-discovery queries (eval/golden/gateway.jsonl) are judged against these tools.
"""

from __future__ import annotations

from typing import Any

Params = dict[str, tuple[str, str, bool]]

CATALOGS: dict[str, list[tuple[str, str, Params]]] = {
    "github": [
        (
            "create_issue",
            "Open a new issue in a GitHub repository with a title, body and optional labels.",
            {
                "owner": ("string", "Account that owns the repository.", True),
                "repo": ("string", "Repository name.", True),
                "title": ("string", "Issue title.", True),
                "body": ("string", "Issue text in Markdown.", False),
                "labels": ("array", "Label names to apply.", False),
            },
        ),
        (
            "list_issues",
            "List issues of a repository, filtered by state, label or assignee.",
            {
                "owner": ("string", "Account that owns the repository.", True),
                "repo": ("string", "Repository name.", True),
                "state": ("string", "open, closed or all.", False),
                "labels": ("array", "Only issues with these labels.", False),
            },
        ),
        (
            "add_issue_comment",
            "Add a comment to an existing issue or pull request.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "issue_number": ("integer", "Number of the issue.", True),
                "body": ("string", "Comment text.", True),
            },
        ),
        (
            "create_pull_request",
            "Open a pull request to merge a branch into the base branch.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "head": ("string", "Branch with the changes.", True),
                "base": ("string", "Branch to merge into.", True),
                "title": ("string", "Pull request title.", True),
            },
        ),
        (
            "merge_pull_request",
            "Merge an open pull request using merge, squash or rebase.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "pull_number": ("integer", "Pull request number.", True),
                "merge_method": ("string", "merge, squash or rebase.", False),
            },
        ),
        (
            "list_pull_requests",
            "List pull requests of a repository by state and base branch.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "state": ("string", "open, closed or all.", False),
            },
        ),
        (
            "get_file_contents",
            "Read a file or directory listing from a repository at a given ref.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "path": ("string", "Path inside the repository.", True),
                "ref": ("string", "Branch, tag or commit SHA.", False),
            },
        ),
        (
            "create_branch",
            "Create a new branch from an existing branch or commit.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "branch": ("string", "Name of the new branch.", True),
                "from_branch": ("string", "Source branch.", False),
            },
        ),
        (
            "search_code",
            "Search source code across GitHub repositories with the code search syntax.",
            {"query": ("string", "Search query, e.g. 'repo:acme/api useEffect'.", True)},
        ),
        (
            "list_commits",
            "List the commits of a branch, newest first.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "sha": ("string", "Branch or commit to start from.", False),
            },
        ),
        (
            "delete_branch",
            "Delete a branch of a repository.",
            {
                "owner": ("string", "Repository owner.", True),
                "repo": ("string", "Repository name.", True),
                "branch": ("string", "Branch to delete.", True),
            },
        ),
    ],
    "files": [
        (
            "read_file",
            "Read the complete contents of a file from the local file system.",
            {"path": ("string", "Absolute or workspace-relative path.", True)},
        ),
        (
            "write_file",
            "Create a new file or overwrite an existing file with the given content.",
            {"path": ("string", "File to write.", True), "content": ("string", "Text to write.", True)},
        ),
        (
            "edit_file",
            "Apply line-based edits to a text file and return a git-style diff.",
            {
                "path": ("string", "File to edit.", True),
                "edits": ("array", "oldText/newText pairs.", True),
                "dry_run": ("boolean", "Preview the diff without writing.", False),
            },
        ),
        (
            "list_directory",
            "List the files and folders inside a directory.",
            {"path": ("string", "Directory to list.", True)},
        ),
        (
            "create_directory",
            "Create a directory, including missing parent folders.",
            {"path": ("string", "Directory to create.", True)},
        ),
        (
            "move_file",
            "Move or rename a file or directory.",
            {"source": ("string", "Current path.", True), "destination": ("string", "New path.", True)},
        ),
        (
            "search_files",
            "Recursively find files whose names match a glob pattern.",
            {"path": ("string", "Folder to start from.", True), "pattern": ("string", "Glob such as '*.py'.", True)},
        ),
        (
            "get_file_info",
            "Show size, permissions and creation and modification times of a file.",
            {"path": ("string", "File or directory.", True)},
        ),
        ("delete_file", "Remove a file from disk.", {"path": ("string", "File to remove.", True)}),
        (
            "directory_tree",
            "Show a recursive tree of a folder as nested JSON.",
            {"path": ("string", "Root folder.", True), "depth": ("integer", "Levels to descend.", False)},
        ),
        (
            "read_multiple_files",
            "Read several files at once; failures are reported per file.",
            {"paths": ("array", "Files to read.", True)},
        ),
    ],
    "postgres": [
        (
            "query",
            "Run a read-only SQL SELECT statement and return the rows.",
            {"sql": ("string", "The SELECT statement.", True), "params": ("array", "Bound parameter values.", False)},
        ),
        (
            "execute_statement",
            "Run a SQL statement that changes data (INSERT, UPDATE, DELETE) in a transaction.",
            {"sql": ("string", "The statement.", True), "params": ("array", "Bound parameter values.", False)},
        ),
        (
            "list_tables",
            "List the tables of a schema with their row estimates.",
            {"schema": ("string", "Schema name, default public.", False)},
        ),
        (
            "describe_table",
            "Show the columns, types, defaults and constraints of a table.",
            {"table": ("string", "Table name, optionally schema-qualified.", True)},
        ),
        (
            "explain_query",
            "Show the execution plan PostgreSQL chooses for a query, with costs.",
            {
                "sql": ("string", "The query to explain.", True),
                "analyze": ("boolean", "Run it and show actual timings.", False),
            },
        ),
        (
            "list_indexes",
            "List the indexes of a table with their definitions and sizes.",
            {"table": ("string", "Table name.", True)},
        ),
        (
            "create_index",
            "Create an index on one or more columns of a table.",
            {
                "table": ("string", "Table name.", True),
                "columns": ("array", "Columns to index.", True),
                "unique": ("boolean", "Enforce uniqueness.", False),
            },
        ),
        ("list_schemas", "List the schemas of the database and their owners.", {}),
        (
            "table_size",
            "Report the disk space used by a table and its indexes.",
            {"table": ("string", "Table name.", True)},
        ),
        ("active_connections", "Show current database sessions with their state and running statement.", {}),
        (
            "backup_table",
            "Copy a table to a timestamped backup table before a risky change.",
            {"table": ("string", "Table to copy.", True)},
        ),
    ],
    "slack": [
        (
            "post_message",
            "Post a message to a Slack channel, optionally in a thread.",
            {
                "channel": ("string", "Channel ID or #name.", True),
                "text": ("string", "Message text (mrkdwn).", True),
                "thread_ts": ("string", "Timestamp of the parent message to reply in its thread.", False),
            },
        ),
        (
            "list_channels",
            "List the public channels of the workspace with their member counts.",
            {"limit": ("integer", "Maximum channels to return.", False)},
        ),
        (
            "get_channel_history",
            "Fetch the recent messages of a channel.",
            {"channel": ("string", "Channel ID.", True), "limit": ("integer", "Number of messages.", False)},
        ),
        (
            "add_reaction",
            "Add an emoji reaction to a message.",
            {
                "channel": ("string", "Channel ID.", True),
                "timestamp": ("string", "Message timestamp.", True),
                "name": ("string", "Emoji name without colons.", True),
            },
        ),
        (
            "get_thread_replies",
            "Get every reply in a message thread.",
            {"channel": ("string", "Channel ID.", True), "thread_ts": ("string", "Parent message timestamp.", True)},
        ),
        ("list_users", "List the members of the workspace with their display names and time zones.", {}),
        (
            "get_user_profile",
            "Get a user's profile: name, title, e-mail and status.",
            {"user_id": ("string", "Slack user ID.", True)},
        ),
        (
            "send_direct_message",
            "Send a private direct message to one user.",
            {"user_id": ("string", "Recipient.", True), "text": ("string", "Message text.", True)},
        ),
        (
            "search_messages",
            "Search messages across channels with Slack's search modifiers.",
            {"query": ("string", "Search text, e.g. 'deploy in:#ops'.", True)},
        ),
        (
            "set_channel_topic",
            "Change the topic shown at the top of a channel.",
            {"channel": ("string", "Channel ID.", True), "topic": ("string", "New topic.", True)},
        ),
        (
            "upload_file",
            "Upload a file or snippet to one or more channels.",
            {
                "channels": ("array", "Channel IDs.", True),
                "content": ("string", "File content.", True),
                "filename": ("string", "Name shown for the file.", False),
            },
        ),
    ],
    "calendar": [
        (
            "create_event",
            "Schedule a calendar event with a title, start and end time and attendees.",
            {
                "title": ("string", "Event title.", True),
                "start": ("string", "Start, ISO 8601.", True),
                "end": ("string", "End, ISO 8601.", True),
                "attendees": ("array", "E-mail addresses to invite.", False),
            },
        ),
        (
            "list_events",
            "List the events of a calendar between two dates.",
            {
                "calendar_id": ("string", "Calendar, default primary.", False),
                "time_min": ("string", "From, ISO 8601.", False),
                "time_max": ("string", "Until, ISO 8601.", False),
            },
        ),
        (
            "update_event",
            "Change the time, title, location or attendees of an existing event.",
            {
                "event_id": ("string", "Event to change.", True),
                "start": ("string", "New start.", False),
                "end": ("string", "New end.", False),
                "title": ("string", "New title.", False),
            },
        ),
        (
            "delete_event",
            "Cancel an event and notify its attendees.",
            {
                "event_id": ("string", "Event to cancel.", True),
                "notify": ("boolean", "Send cancellation e-mails.", False),
            },
        ),
        (
            "find_free_slots",
            "Find time slots when all the given people are free for a meeting of a given length.",
            {
                "attendees": ("array", "E-mail addresses.", True),
                "duration_minutes": ("integer", "Meeting length.", True),
                "window_start": ("string", "Earliest start.", False),
                "window_end": ("string", "Latest end.", False),
            },
        ),
        (
            "respond_to_invitation",
            "Accept, decline or tentatively accept a meeting invitation.",
            {
                "event_id": ("string", "Invitation's event.", True),
                "response": ("string", "accepted, declined or tentative.", True),
            },
        ),
        ("list_calendars", "List the calendars the user can see, with their time zones.", {}),
        (
            "get_event",
            "Get the full details of one event, including the video call link.",
            {"event_id": ("string", "Event ID.", True)},
        ),
        (
            "set_out_of_office",
            "Mark a period as out of office and decline new meetings automatically.",
            {
                "start": ("string", "First day.", True),
                "end": ("string", "Last day.", True),
                "message": ("string", "Decline message.", False),
            },
        ),
        (
            "add_reminder",
            "Add a popup or e-mail reminder before an event starts.",
            {"event_id": ("string", "Event ID.", True), "minutes_before": ("integer", "Lead time.", True)},
        ),
        (
            "quick_add",
            "Create an event from a plain-language sentence like 'Lunch with Ana Friday at noon'.",
            {"text": ("string", "The sentence.", True)},
        ),
    ],
    "browser": [
        (
            "fetch_url",
            "Download a web page and return its content converted to Markdown.",
            {
                "url": ("string", "Address of the page.", True),
                "max_length": ("integer", "Characters to return.", False),
            },
        ),
        (
            "web_search",
            "Search the web and return titles, links and snippets of the top results.",
            {"query": ("string", "Search terms.", True), "count": ("integer", "Number of results.", False)},
        ),
        (
            "take_screenshot",
            "Capture a PNG screenshot of the current page or of one element.",
            {
                "selector": ("string", "CSS selector of the element; whole page if omitted.", False),
                "full_page": ("boolean", "Capture beyond the viewport.", False),
            },
        ),
        (
            "navigate",
            "Open a URL in the browser tab and wait for it to load.",
            {"url": ("string", "Address to open.", True)},
        ),
        (
            "click",
            "Click an element of the page chosen by CSS selector.",
            {"selector": ("string", "CSS selector.", True)},
        ),
        (
            "fill_form",
            "Type values into form fields of the page and optionally submit it.",
            {
                "fields": ("object", "Selector to value.", True),
                "submit": ("boolean", "Press submit afterwards.", False),
            },
        ),
        (
            "evaluate_javascript",
            "Run a JavaScript expression in the page and return its value.",
            {"script": ("string", "Expression to evaluate.", True)},
        ),
        ("get_console_logs", "Return the messages the page wrote to the browser console.", {}),
        ("save_pdf", "Print the current page to a PDF file.", {"path": ("string", "Where to save the PDF.", True)}),
        ("extract_links", "List every hyperlink on the page with its text and target.", {}),
        (
            "wait_for_selector",
            "Wait until an element appears on the page, up to a timeout.",
            {"selector": ("string", "CSS selector.", True), "timeout_ms": ("integer", "Maximum wait.", False)},
        ),
    ],
    "mail": [
        (
            "send_email",
            "Send an e-mail to one or more recipients, with optional CC and file attachments.",
            {
                "to": ("array", "Recipient addresses.", True),
                "subject": ("string", "Subject line.", True),
                "body": ("string", "Message text.", True),
                "cc": ("array", "Addresses to copy.", False),
                "attachments": ("array", "Paths of files to attach.", False),
            },
        ),
        (
            "list_inbox",
            "List the newest messages in the inbox with sender, subject and date.",
            {
                "unread_only": ("boolean", "Only unread messages.", False),
                "limit": ("integer", "Maximum messages.", False),
            },
        ),
        (
            "search_mail",
            "Search the mailbox by sender, subject, words or date range.",
            {"query": ("string", "Search text, e.g. 'from:ana invoice'.", True)},
        ),
        (
            "read_email",
            "Read the full text and attachments list of one e-mail.",
            {"message_id": ("string", "Message ID.", True)},
        ),
        (
            "reply_to_email",
            "Reply to an e-mail, to its sender or to everyone on it.",
            {
                "message_id": ("string", "Message to answer.", True),
                "body": ("string", "Reply text.", True),
                "reply_all": ("boolean", "Answer every recipient.", False),
            },
        ),
        (
            "forward_email",
            "Forward an e-mail with its attachments to other people.",
            {"message_id": ("string", "Message to forward.", True), "to": ("array", "Recipients.", True)},
        ),
        (
            "create_draft",
            "Save an e-mail as a draft to finish and send later.",
            {
                "to": ("array", "Recipients.", False),
                "subject": ("string", "Subject.", False),
                "body": ("string", "Text.", False),
            },
        ),
        (
            "archive_email",
            "Move an e-mail out of the inbox into the archive.",
            {"message_id": ("string", "Message ID.", True)},
        ),
    ],
    "helpdesk": [
        (
            "create_ticket",
            "Open a support ticket in the help desk queue with a subject, description and priority.",
            {
                "subject": ("string", "Short summary.", True),
                "description": ("string", "What the customer reported.", True),
                "priority": ("string", "low, normal, high or urgent.", False),
            },
        ),
        (
            "update_ticket",
            "Change the status, priority or assignee of a support ticket.",
            {
                "ticket_id": ("string", "Ticket ID.", True),
                "status": ("string", "open, pending or solved.", False),
                "priority": ("string", "New priority.", False),
            },
        ),
        (
            "list_tickets",
            "List support tickets by status, priority or requester.",
            {
                "status": ("string", "open, pending or solved.", False),
                "requester": ("string", "Customer e-mail.", False),
            },
        ),
        (
            "assign_ticket",
            "Assign a support ticket to an agent or a group.",
            {"ticket_id": ("string", "Ticket ID.", True), "assignee": ("string", "Agent or group.", True)},
        ),
        (
            "add_ticket_comment",
            "Add a public reply or an internal note to a support ticket.",
            {
                "ticket_id": ("string", "Ticket ID.", True),
                "body": ("string", "Comment text.", True),
                "internal": ("boolean", "Visible to agents only.", False),
            },
        ),
        (
            "merge_tickets",
            "Merge duplicate support tickets into one.",
            {
                "target_id": ("string", "Ticket to keep.", True),
                "source_ids": ("array", "Duplicates to merge into it.", True),
            },
        ),
    ],
}


def input_schema(params: Params) -> dict[str, Any]:
    """The JSON Schema of a tool's parameters."""
    return {
        "type": "object",
        "properties": {name: {"type": kind, "description": text} for name, (kind, text, _) in params.items()},
        "required": [name for name, (_, _, required) in params.items() if required],
    }
