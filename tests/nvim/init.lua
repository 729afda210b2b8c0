-- Drives the PerfPilot server from headless Neovim, as a user would: code action, edit, hover.
--
-- Run: nvim --headless --clean -u tests/nvim/init.lua
-- Inputs (environment):
--   PERFPILOT_NVIM_CMD      JSON list: the server command, e.g. ["python", "-m", "perfpilot", "serve"]
--   PERFPILOT_NVIM_FILE     the C++ file to open (its folder is the workspace root)
--   PERFPILOT_NVIM_RESULT   where to write the JSON result
--   PERFPILOT_NVIM_INSIDE   "line:character" (0-based) inside the function to optimize
--   PERFPILOT_NVIM_NAME     "line:character" (0-based) on the function's name, for hover
--   PERFPILOT_NVIM_OUTSIDE  "line:character" (0-based) outside every function
--   PERFPILOT_NVIM_WAIT_MS  how long to wait for the measured edit (default 240000)
-- Works with Neovim 0.7 (vim.lsp.start_client) and newer releases (vim.lsp.start).

local result = {
  nvim_version = tostring(vim.version().major) .. '.' .. vim.version().minor .. '.'
    .. vim.version().patch,
  messages = {},     -- window/showMessage texts
  jobs = {},         -- perfpilot/jobStatus notifications
  edits = {},        -- labels of workspace/applyEdit requests the built-in handler applied
  select_items = {}, -- what vim.ui.select was offered for the code action menu
  steps = {},
}

-- Client methods are plain functions on 0.7-0.10 and methods (client:stop()) from 0.11 on.
local function call(client, method, ...)
  if vim.fn.has('nvim-0.11') == 1 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function step(name)
  table.insert(result.steps, name)
end

local function position(name)
  local line, character = (os.getenv(name) or ''):match('^(%d+):(%d+)$')
  assert(line, name .. ' must be "line:character"')
  return { line = tonumber(line), character = tonumber(character) }
end

local function write_result()
  local file = assert(io.open(assert(os.getenv('PERFPILOT_NVIM_RESULT')), 'w'))
  file:write(vim.json.encode(result))
  file:close()
end

-- Titles of code actions the server offers at a position (raw request, no UI).
local function code_action_titles(bufnr, uri, pos)
  local params = {
    textDocument = { uri = uri },
    range = { start = pos, ['end'] = pos },
    context = { diagnostics = {} },
  }
  local responses, err = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, 10000)
  assert(responses, 'codeAction request failed: ' .. tostring(err))
  local titles = {}
  for _, response in pairs(responses) do
    assert(not response.err, 'codeAction error: ' .. vim.inspect(response.err))
    for _, action in ipairs(response.result or {}) do
      table.insert(titles, action.title)
    end
  end
  return titles
end

local function hover_text(bufnr, uri, pos)
  local params = { textDocument = { uri = uri }, position = pos }
  local responses, err = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000)
  assert(responses, 'hover request failed: ' .. tostring(err))
  for _, response in pairs(responses) do
    local contents = response.result and response.result.contents
    if type(contents) == 'table' and contents.value then
      return contents.value
    elseif type(contents) == 'string' then
      return contents
    end
  end
  return nil
end

-- Answers Neovim's menus (vim.ui.select) as a user would: the first entry matching `pattern`.
-- Every offered entry is appended to `seen`; `on_chosen` runs once an entry was picked.
local function choose(pattern, seen, on_chosen)
  vim.ui.select = function(items, opts, on_choice)
    local picked = nil
    for index, item in ipairs(items) do
      local text = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(seen, text)
      if picked == nil and text:find(pattern) then
        picked = index
      end
    end
    if picked then
      on_chosen()
      on_choice(items[picked], picked)
    else
      on_choice(nil, nil)
    end
  end
end

local function job_finished()
  for _, job in ipairs(result.jobs) do
    if job.done and job.stage ~= 'queued' and job.kind == 'optimize' then
      return true
    end
  end
  return false
end

local function run()
  local cmd = vim.json.decode((assert(os.getenv('PERFPILOT_NVIM_CMD'), 'PERFPILOT_NVIM_CMD')))
  local file = assert(os.getenv('PERFPILOT_NVIM_FILE'), 'PERFPILOT_NVIM_FILE')
  local wait_ms = tonumber(os.getenv('PERFPILOT_NVIM_WAIT_MS') or '') or 240000
  local root = vim.fn.fnamemodify(file, ':p:h')

  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = 'cpp' -- the languageId Neovim sends
  local uri = vim.uri_from_bufnr(bufnr)
  local before = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)

  -- Only PerfPilot's own messages are overridden; workspace/applyEdit stays Neovim's built-in.
  local config = {
    name = 'perfpilot',
    cmd = cmd,
    root_dir = root,
    init_options = { settings = { runner = { callgrind = false } } },
    handlers = {
      ['window/showMessage'] = function(_, params)
        table.insert(result.messages, params.message)
      end,
      ['perfpilot/jobStatus'] = function(_, params)
        table.insert(result.jobs, params)
      end,
      ['workspace/executeCommand'] = function(err, res)
        result.execute_command = { err = err and err.message, result = res }
      end,
    },
    on_exit = function(code, signal)
      result.server_exit = { code = code, signal = signal }
    end,
  }
  local builtin_apply = vim.lsp.handlers['workspace/applyEdit']
  config.handlers['workspace/applyEdit'] = function(err, params, ctx, cfg)
    table.insert(result.edits, params.label or '')
    return builtin_apply(err, params, ctx, cfg)
  end

  local client_id
  if vim.lsp.start_client and vim.fn.has('nvim-0.8') == 0 then
    client_id = assert(vim.lsp.start_client(config), 'start_client failed')
    assert(vim.lsp.buf_attach_client(bufnr, client_id), 'buf_attach_client failed')
  else
    client_id = assert(vim.lsp.start(config, { bufnr = bufnr }), 'vim.lsp.start failed')
  end
  local client = vim.lsp.get_client_by_id(client_id)
  assert(vim.wait(30000, function()
    return client.initialized or result.server_exit ~= nil
  end, 50), 'server did not initialize within 30 s')
  assert(not result.server_exit, 'server exited: ' .. vim.inspect(result.server_exit))
  step('initialized')

  result.outside_titles = code_action_titles(bufnr, uri, position('PERFPILOT_NVIM_OUTSIDE'))
  local inside = position('PERFPILOT_NVIM_INSIDE')
  result.inside_titles = code_action_titles(bufnr, uri, inside)
  step('code actions listed')

  -- The user's path: :lua vim.lsp.buf.code_action() shows a menu (vim.ui.select); pick
  -- "Make this faster", and Neovim sends workspace/executeCommand itself.
  local chosen = false
  choose('^Make this faster', result.select_items, function() chosen = true end)
  vim.api.nvim_win_set_cursor(0, { inside.line + 1, inside.character })
  vim.lsp.buf.code_action()
  assert(vim.wait(10000, function() return chosen end, 50), 'no code action menu was shown')
  step('make faster chosen')

  -- The server sends the job's final status after the edit was applied (or refused).
  result.finished_in_time = vim.wait(wait_ms, job_finished, 100)
  result.changed = not vim.deep_equal(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), before)
  result.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  step('waited for the edit')

  result.hover = hover_text(bufnr, uri, position('PERFPILOT_NVIM_NAME'))
  step('hover')

  -- Revert through Neovim's code lens UI: :lua vim.lsp.codelens.run() on the lens line.
  vim.lsp.codelens.refresh()
  assert(vim.wait(10000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 50),
    'no code lenses arrived')
  result.lens_titles = {}
  local lens_line
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    local title = lens.command and lens.command.title
    table.insert(result.lens_titles, title)
    if title == 'Revert' then
      lens_line = lens.range.start.line
    end
  end
  assert(lens_line, 'no Revert lens: ' .. vim.inspect(result.lens_titles))
  local reverted = false
  result.lens_menu = {}
  choose('^Revert$', result.lens_menu, function() reverted = true end)
  vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })
  vim.lsp.codelens.run()
  assert(vim.wait(10000, function() return reverted end, 50), 'no code lens menu was shown')
  vim.wait(20000, function()
    return vim.deep_equal(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), before)
  end, 50)
  result.lines_after_revert = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  step('reverted')

  call(client, 'stop')
  vim.wait(10000, function() return result.server_exit ~= nil end, 50)
  step('stopped')
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  result.error = tostring(err)
end
write_result()
vim.cmd('qa!')
