import { describe, expect, it } from 'vitest';
import { withoutCredentials } from './webhook-url-view.ts';

describe('withoutCredentials', () => {
  it.each([
    ['https://ops:hunter2@hooks.example.com/crew', 'https://hooks.example.com/crew'],
    [
      'https://hooks.example.com/crew?token=abc123&run=7',
      'https://hooks.example.com/crew?token=REDACTED&run=7',
    ],
    [
      'https://hooks.example.com/a?api_key=k1&access_token=t1',
      'https://hooks.example.com/a?api_key=REDACTED&access_token=REDACTED',
    ],
    [
      'https://hooks.example.com/a?key=k&signature=s&sig=g',
      'https://hooks.example.com/a?key=REDACTED&signature=REDACTED&sig=REDACTED',
    ],
    [
      'https://hooks.example.com/a?client_secret=s&password=p',
      'https://hooks.example.com/a?client_secret=REDACTED&password=REDACTED',
    ],
    [
      'https://s3.example.com/b?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ff',
      'https://s3.example.com/b?X-Amz-Credential=REDACTED&X-Amz-Signature=REDACTED',
    ],
    ['https://hooks.example.com/a?%74oken=encoded', 'https://hooks.example.com/a?%74oken=REDACTED'],
    [
      'https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX',
      'https://hooks.slack.com/services/T0001/B0001/REDACTED',
    ],
    [
      'https://discord.com/api/webhooks/123456789012345678/aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5bC7dE9fG1hJ3kL5mN7pQ9rS1tU3vW5xY7z',
      'https://discord.com/api/webhooks/REDACTED/REDACTED',
    ],
    [
      'https://n8n.example.com/webhook/0b7f6a4e-2c1d-4e8f-9a3b-5c6d7e8f9a0b',
      'https://n8n.example.com/webhook/REDACTED',
    ],
  ])('redacts the secrets of %s', (url, shown) => {
    expect(withoutCredentials(url)).toBe(shown);
  });

  it.each([
    'https://hooks.example.com/crew',
    'https://hooks.example.com/crew?x=1&run=abc&empty_token=',
    'https://hooks.example.com/v2/notifications/crew-events',
    'http://127.0.0.1:9000/same/task',
    'https://hooks.example.com',
  ])('shows %s exactly as given', (url) => {
    expect(withoutCredentials(url)).toBe(url);
  });
});
