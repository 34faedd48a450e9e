import { render } from 'preact';
import { ApiClient } from './api-client.ts';
import { App } from './app.tsx';
import { askFirstPageEarly } from './first-page.ts';
import { sessionToken } from './session-token.ts';
import './styles.css';

const token = sessionToken.read();
// The list is the page a signed-in visit opens on.
if (token !== null && (location.hash === '' || location.hash === '#/'))
  askFirstPageEarly(new ApiClient(token));

const root = document.getElementById('app');
if (root !== null) render(<App />, root);
