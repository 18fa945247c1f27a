-- The plugin's one session on the server, and the commands on it:
-- history, clear, save, load, the list of saved sessions, the source.
local chat = require("aiq.chat")
local config = require("aiq.config")
local message = require("aiq.message")
local render = require("aiq.render")
local server = require("aiq.server")

local M = {}

-- name is a session file as a message's first line names it: its name;
-- the whole path follows in :messages.
local function name(path)
  return vim.fn.fnamemodify(path or "", ":t")
end

-- state: the session's id on the running server, and the file it saves
-- to, to reopen it after the server restarts; restore_tried: the last
-- conversation is looked for once per Neovim, at its first session.
local state = { id = nil, path = nil, restore_tried = false }

-- busy: a running turn holds the session. aiq.turn requires this module,
-- so it is required when needed.
local function busy()
  return require("aiq.turn").busy()
end

function M.id()
  return state.id
end

-- forget drops the session id: ids are valid for one connection, and the
-- next command reopens the session from its file.
function M.forget()
  state.id = nil
end

-- remember notes the file the session saves to.
function M.remember(path)
  state.path = path
end

local session_waiters = nil

-- history_lines calls done(lines) with session id's conversation as the
-- panel shows it, or done(nil, err).
local function history_lines(id, done)
  server.conn:request("chat/history", { sessionId = id, detail = "full" }, function(err, result)
    if err then
      return done(nil, err)
    end
    done(render.messages(result.messages, require("aiq.turn").render_opts(), result.seen))
  end)
end

-- latest is the file of the last conversation on source that is worth
-- reopening (session/list's latest, readable, with a turn), or nil.
local function latest(list, source)
  for _, s in ipairs(list or {}) do
    if s.latest == true and (s.error == nil or s.error == vim.NIL) and (s.turns or 0) > 0 and s.source == source then
      return s.path
    end
  end
end

-- restore reopens the last conversation on the source of fresh (a new,
-- empty session, session/new's result) in its place, shows it in the
-- panel above anything asked meanwhile, and calls done with the session
-- to use. Nothing to reopen is silent; a file that will not load says so
-- on one line, and fresh stays.
local function restore(fresh, done)
  -- latestFor reads one or two files, not the whole sessions folder.
  server.conn:request("session/list", { latestFor = fresh.source or "" }, function(err, result)
    if err and err.stopped then
      return done(nil, err)
    elseif err then
      server.notify("the last conversation could not be looked for: " .. message.error_text(err), vim.log.levels.WARN)
    end
    local path = not err and latest(result.sessions, fresh.source) or nil
    if not path then
      return done(fresh.sessionId)
    end
    server.conn:request("session/load", { path = path }, function(e, loaded)
      if e and e.stopped then
        return done(nil, e)
      elseif e then
        server.notify(
          string.format("the last conversation could not be reopened: %s: %s", name(path), message.error_text(e)),
          vim.log.levels.WARN
        )
        return done(fresh.sessionId)
      end
      state.path = loaded.path
      server.conn:request("session/close", { sessionId = fresh.sessionId }, function() end)
      -- The history is read before done lets a question in, so that it
      -- holds the conversation only.
      history_lines(loaded.sessionId, function(lines, he)
        if he and he.stopped then
          return done(nil, he)
        end
        server.report(he)
        if lines and #lines > 0 then
          chat.prepend(lines)
          chat.open()
        end
        done(loaded.sessionId)
      end)
    end)
  end)
end

-- open_session reopens the session file of before a restart, else makes
-- a new session, in the place of which the first one of this Neovim
-- reopens the last conversation (option restore_last_session).
local function open_session(done)
  local function new()
    server.conn:request("session/new", vim.empty_dict(), function(err, result)
      if err then
        return done(nil, err)
      end
      if state.restore_tried or not config.options.restore_last_session then
        return done(result.sessionId)
      end
      state.restore_tried = true
      restore(result, done)
    end)
  end
  if not state.path then
    return new()
  end
  server.conn:request("session/load", { path = state.path }, function(err, result)
    if err and not err.stopped then
      server.notify(
        string.format("a new session starts: %s could not be reopened\n%s", name(state.path), message.error_text(err)),
        vim.log.levels.WARN
      )
      state.path = nil
      return new()
    end
    done(not err and result.sessionId or nil, err)
  end)
end

-- with_session calls fn(sessionId) once the plugin's session exists, or
-- fn(nil, err) when it could not be made.
function M.with_session(fn)
  if state.id then
    return fn(state.id)
  end
  if session_waiters then
    table.insert(session_waiters, fn)
    return
  end
  session_waiters = { fn }
  open_session(function(id, err)
    state.id = id
    local waiters = session_waiters
    session_waiters = nil
    for _, waiter in ipairs(waiters) do
      waiter(id, err)
    end
  end)
end

local function show_history(id)
  history_lines(id, function(lines, err)
    if err then
      return server.report(err)
    end
    chat.open()
    if #lines == 0 then
      chat.set_placeholder("_No questions yet in this session._")
    else
      chat.set_lines(lines)
    end
  end)
end

function M.history()
  if busy() then
    return
  end
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    show_history(id)
  end)
end

-- ask_clear asks before clearing; No is the default, so Enter keeps the
-- conversation, and Esc (0) does too.
function M.ask_clear()
  return vim.fn.confirm("Clear the aiq conversation? The session file is emptied too.", "&Yes\n&No", 2) == 1
end

-- clear asks once the session exists: the first command may reopen the
-- last conversation (:help aiq-restore), which the user sees before saying
-- yes to emptying it and its file.
function M.clear()
  if busy() then
    return
  end
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    if busy() or not M.ask_clear() then
      return
    end
    server.conn:request("chat/clear", { sessionId = id }, function(e)
      if e then
        return server.report(e)
      end
      chat.clear()
      server.notify("the conversation is cleared")
    end)
  end)
end

-- save_request sends session/save for id, to path when given, and calls
-- done(result) when it succeeded.
local function save_request(id, path, done)
  server.conn:request("session/save", { sessionId = id, path = path }, function(e, result)
    if e then
      return server.report(e)
    end
    done(result)
  end)
end

-- save_copy saves the session to path and goes on saving to its own file:
-- session/save with a path moves the session there, so the session is
-- saved to its own file first (to learn it), then to path, then back.
-- A later :AiqClear empties the session's own file, never the copy.
local function save_copy(id, path, force)
  save_request(id, nil, function(own)
    if own.path == path then
      state.path = own.path
      return server.notify(string.format("saved to %s\n%s", name(own.path), own.hint or ""))
    end
    -- As :write does (E13), keep a file that is there unless told with !.
    if not force and vim.loop.fs_stat(path) then
      return server.notify(string.format("%s exists (add ! to replace it)", name(path)), vim.log.levels.ERROR)
    end
    save_request(id, path, function(copy)
      save_request(id, own.path, function(back)
        state.path = back.path
        server.notify(string.format(
          "saved a copy to %s\nSaved a copy to %s. This conversation goes on in %s. %s",
          name(copy.path), copy.path, back.path, copy.hint or ""
        ))
      end)
    end)
  end)
end

-- save saves the session to its own file, or a copy to path; force
-- replaces a file already at path.
function M.save(path, force)
  path = vim.trim(path or "")
  -- A turn's autosave between the saves of a copy would land in the copy.
  if path ~= "" and busy() then
    return
  end
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    if path ~= "" then
      return save_copy(id, vim.fn.fnamemodify(vim.fn.expand(path), ":p"), force)
    end
    save_request(id, nil, function(result)
      state.path = result.path
      server.notify(string.format("saved to %s\n%s", name(result.path), result.hint or ""))
    end)
  end)
end

function M.load(path)
  path = vim.trim(path or "")
  if path == "" then
    server.notify(":AiqLoad needs a session file; :AiqSessions lists the saved ones", vim.log.levels.ERROR)
    return
  end
  if busy() then
    return
  end
  path = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  server.conn:request("session/load", { path = path }, function(err, result)
    if err then
      return server.report(err)
    end
    local old = state.id
    state.id, state.path = result.sessionId, result.path
    -- A session the user opened is not replaced by the last one.
    state.restore_tried = true
    if old and old ~= result.sessionId then
      server.conn:request("session/close", { sessionId = old }, function() end)
    end
    local n = result.turns or 0
    server.notify(string.format("loaded %s (%d turn%s)\nLoaded %s", name(result.path), n, n == 1 and "" or "s", result.path))
    if result.sourceAvailable == false then
      local names = {}
      for _, s in ipairs(result.sources or {}) do
        names[#names + 1] = s.name
      end
      server.notify(
        string.format(
          "no source '%s' here: pick one with :AiqSource\nThe session's source '%s' is not configured here (configured: %s).",
          result.source or "",
          result.source or "",
          #names > 0 and table.concat(names, ", ") or "none"
        ),
        vim.log.levels.WARN
      )
    end
    show_history(result.sessionId)
  end)
end

-- label is one line per saved session: when it was last saved
-- and its first question, on one line and cut to fit a picker.
-- A file that holds no time (one without metadata) is dated by its
-- modification time, and one without a question is named by its file, so
-- that no two lines read the same.
function M.label(s)
  local when = (type(s.updated) == "string" and s.updated or ""):sub(1, 16):gsub("T", " ")
  if when == "" or when:find("^0001") then
    local stat = s.path and vim.loop.fs_stat(s.path)
    when = stat and os.date("!%Y-%m-%d %H:%M", stat.mtime.sec) or "????-??-?? ??:??"
  end
  if s.error and s.error ~= vim.NIL then
    return string.format("%s  %s (unreadable)", when, name(s.path))
  end
  local question = vim.trim((s.firstQuestion or ""):gsub("%s+", " "))
  if question == "" then
    question = name(s.path) .. " (no question yet)"
  end
  local n = s.turns or 0
  return string.format("%s  %s  (%d turn%s)", when, render.shorten(question, 60), n, n == 1 and "" or "s")
end

function M.sessions()
  server.conn:request("session/list", nil, function(err, result)
    if err then
      return server.report(err)
    end
    local list = result.sessions or {}
    if #list == 0 then
      server.notify("no saved sessions yet")
      return
    end
    vim.ui.select(list, { prompt = "Load an aiq session:", format_item = M.label }, function(choice)
      if choice then
        M.load(choice.path)
      end
    end)
  end)
end

local function set_source(name)
  -- A source picked first starts a new conversation on it: the last one
  -- belongs to the source it was had on.
  state.restore_tried = true
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    server.conn:request("session/setSource", { sessionId = id, source = name }, function(e, result)
      if e then
        return server.report(e)
      end
      if result.source == "" then
        server.notify("the session now has no database")
      else
        server.notify(string.format("the session now uses %s (%s)", result.source, result.databaseType or ""))
      end
    end)
  end)
end

function M.source(name)
  name = vim.trim(name or "")
  if busy() then
    return
  end
  if name ~= "" then
    return set_source(name)
  end
  server.conn:request("sources/list", nil, function(err, result)
    if err then
      return server.report(err)
    end
    local list = vim.list_extend({}, result.sources or {})
    list[#list + 1] = { name = "" }
    vim.ui.select(list, {
      prompt = "aiq data source:",
      format_item = function(s)
        if s.name == "" then
          return "(no database)"
        end
        local label = type(s.label) == "string" and s.label ~= "" and (" [" .. s.label .. "]") or ""
        return string.format("%s (%s)%s", s.name, s.type or "", label)
      end,
    }, function(choice)
      if choice then
        set_source(choice.name)
      end
    end)
  end)
end

local function set_model(name)
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    server.conn:request("session/setModel", { sessionId = id, model = name }, function(e, result)
      if e then
        return server.report(e)
      end
      server.notify(string.format("the session now uses the model %s", result.current))
    end)
  end)
end

-- model sets the session's model to name, one of those the endpoint
-- serves; without a name, it offers them.
function M.model(name)
  name = vim.trim(name or "")
  if busy() then
    return
  end
  if name ~= "" then
    return set_model(name)
  end
  M.with_session(function(id, err)
    if not id then
      return server.report(err)
    end
    server.conn:request("models/list", { sessionId = id }, function(e, result)
      if e then
        return server.report(e)
      end
      if result.warning and result.warning ~= vim.NIL then
        server.notify(result.warning, vim.log.levels.WARN)
      end
      vim.ui.select(result.models or {}, {
        prompt = "aiq model:",
        format_item = function(m)
          local marks = {}
          if m == result.configured then
            marks[#marks + 1] = "config.yaml"
          end
          if m == result.current then
            marks[#marks + 1] = "current"
          end
          return #marks > 0 and string.format("%s (%s)", m, table.concat(marks, ", ")) or m
        end,
      }, function(choice)
        if choice and choice ~= result.current then
          set_model(choice)
        end
      end)
    end)
  end)
end

-- Completion -------------------------------------------------------------

local function starting_with(items, lead)
  local out = {}
  for _, item in ipairs(items) do
    if item:sub(1, #lead) == lead then
      out[#out + 1] = item
    end
  end
  return out
end

-- complete_sessions gives the session files of the server's home, and
-- files elsewhere once the user types a path.
function M.complete_sessions(lead)
  local info = server.conn:ready(3000)
  local home = info and info.home
  local files = home and vim.fn.glob(home .. "/sessions/*.json", false, true) or {}
  local matches = starting_with(files, lead)
  if #matches == 0 and lead ~= "" then
    return vim.fn.getcompletion(lead, "file")
  end
  return matches
end

function M.complete_models(lead)
  local result = server.conn:request_sync("models/list", { sessionId = M.id() }, 3000)
  return starting_with(result and result.models or {}, lead)
end

function M.complete_sources(lead)
  local result = server.conn:request_sync("sources/list", nil, 3000)
  local names = {}
  for _, s in ipairs(result and result.sources or {}) do
    names[#names + 1] = s.name
  end
  return starting_with(names, lead)
end

return M
