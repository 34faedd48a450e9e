const key = 'crewd.token';

/** The token lives in sessionStorage only: gone when the tab closes, never in a URL, a cookie or a log. */
export const sessionToken = {
  read(): string | null {
    return sessionStorage.getItem(key);
  },
  write(token: string): void {
    sessionStorage.setItem(key, token);
  },
  clear(): void {
    sessionStorage.removeItem(key);
  },
};
