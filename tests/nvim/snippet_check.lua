-- Checks the docs' Neovim snippet after it was loaded as init.lua and a C++ file was opened:
-- the snippet's autocmd must have started and attached PerfPilot, with the snippet's settings.
--
-- Run: nvim --headless --clean -u SNIPPET -c 'luafile tests/nvim/snippet_check.lua' FILE.cpp
-- Inputs (environment): PERFPILOT_NVIM_RESULT (JSON written here),
--   PERFPILOT_NVIM_INSIDE ("line:character", 0-based, inside a function).

local result = { filetype = vim.bo.filetype, has_vim_fs = vim.fs ~= nil }

-- Client methods are plain functions on 0.7-0.10 and methods (client:stop()) from 0.11 on.
local function call(client, method, ...)
  if vim.fn.has('nvim-0.11') == 1 then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function attached_clients(bufnr)
  if vim.lsp.get_clients then -- 0.10+
    return vim.lsp.get_clients({ bufnr = bufnr })
  end
  return vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
end

local function run()
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  assert(vim.wait(90000, function()
    for _, c in ipairs(attached_clients(bufnr)) do
      if c.name == 'perfpilot' and c.initialized then
        client = c
        return true
      end
    end
    return false
  end, 50), 'no initialized perfpilot client attached to the buffer within 90 s')
  result.client_name = client.name
  result.root_dir = client.config.root_dir

  local line, character = os.getenv('PERFPILOT_NVIM_INSIDE'):match('^(%d+):(%d+)$')
  local pos = { line = tonumber(line), character = tonumber(character) }
  local response = call(client, 'request_sync', 'textDocument/codeAction', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = pos, ['end'] = pos },
    context = { diagnostics = {} },
  }, 10000, bufnr)
  assert(response and not response.err, 'codeAction failed: ' .. vim.inspect(response))
  result.titles = {}
  for _, action in ipairs(response.result or {}) do
    table.insert(result.titles, action.title)
  end

  -- perfpilot.status reports the settings the server ended up with.
  local status = call(client, 'request_sync', 'workspace/executeCommand',
    { command = 'perfpilot.status', arguments = { {} } }, 10000, bufnr)
  assert(status and not status.err, 'perfpilot.status failed: ' .. vim.inspect(status))
  result.status = status.result

  call(client, 'stop')
  vim.wait(10000, function() return call(client, 'is_stopped') end, 50)
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  result.error = tostring(err)
end
local file = assert(io.open(assert(os.getenv('PERFPILOT_NVIM_RESULT')), 'w'))
file:write(vim.json.encode(result))
file:close()
vim.cmd('qa!')
