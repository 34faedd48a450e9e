import { useState } from 'preact/hooks';
import type { ApiClient } from './api-client.ts';
import type { OutputFile } from './api-types.ts';

/** The files the execution's tasks saved, each downloaded with the token in a header, never in a link. */
export function OutputFiles({ client, files }: { client: ApiClient; files: readonly OutputFile[] }) {
  const [error, setError] = useState<string | null>(null);
  if (files.length === 0) return <p class="muted">No task saved a file.</p>;
  const download = async (file: OutputFile) => {
    setError(null);
    try {
      saveAs(await client.download(file.url), file.path.split('/').at(-1) ?? file.path);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    }
  };
  return (
    <>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Task</th>
              <th scope="col" class="number">
                Size
              </th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {files.map((file) => (
              <tr key={file.path}>
                <td class="mono wrap">{file.path}</td>
                <td>{file.task_id}</td>
                <td class="number">{file.size.toLocaleString()} B</td>
                <td>
                  <button
                    type="button"
                    aria-label={`Download ${file.path}`}
                    onClick={() => void download(file)}
                  >
                    Download
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </>
  );
}

/** Hands the browser a blob to save under `name`; the blob is let go once the browser has had time to read it. */
function saveAs(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
