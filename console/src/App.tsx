import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { NavLink, Navigate, Route, Routes } from 'react-router';
import { ApiKeysPage } from './pages/ApiKeys.js';
import { DashboardPage } from './pages/Dashboard.js';
import { InventoryPage } from './pages/Inventory.js';
import { ItemsPage } from './pages/Items.js';
import { OrderPage, OrdersPage } from './pages/Orders.js';
import { RateCardsPage } from './pages/RateCards.js';
import { ReceiptPage, ReceiptsPage } from './pages/Receipts.js';
import { SignInPage } from './pages/SignIn.js';
import { WebhooksPage } from './pages/Webhooks.js';
import { savedKey, useSession, useSessionState } from './session.js';

/** The signed-out page, or the signed-in layout: the navigation, the facility, and the page. */
export function App() {
  const { session, signIn } = useSessionState();
  const [resuming, setResuming] = useState(() => savedKey() !== null);
  useEffect(() => {
    const key = savedKey();
    if (key) void signIn(key).finally(() => setResuming(false));
  }, [signIn]);
  if (resuming) return null;
  return session ? <SignedIn /> : <SignInPage />;
}

/** The pages, in the navigation's order; an operator key may not manage rate cards, keys or webhooks, so it is not offered them. */
const PAGES = [
  { to: '/', label: 'Dashboard', end: true },
  { to: '/receipts', label: 'Receipts' },
  { to: '/orders', label: 'Orders' },
  { to: '/inventory', label: 'Inventory' },
  { to: '/items', label: 'Items' },
  { to: '/rate-cards', label: 'Rate cards', adminOnly: true },
  { to: '/api-keys', label: 'API keys', adminOnly: true },
  { to: '/webhooks', label: 'Webhooks', adminOnly: true },
];

function SignedIn() {
  const { key, facilityId, chooseFacility, signOut } = useSession();
  const queries = useQueryClient();
  const admin = key.Role === 'admin';
  const leave = () => {
    queries.clear();
    signOut();
  };
  return (
    <div className="layout">
      <header className="top">
        <span className="brand">Wharf</span>
        <span className="who">
          {key.CompanyID} · {key.Label || `key ${key.KeyID}`} ({key.Role})
        </span>
        <label className="facility">
          Facility
          <select value={facilityId} onChange={(event) => chooseFacility(event.target.value)}>
            {key.Facilities.map((facility) => (
              <option key={facility}>{facility}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={leave}>
          Sign out
        </button>
      </header>
      <nav className="side" aria-label="Main">
        <ul>
          {PAGES.filter((page) => admin || !page.adminOnly).map((page) => (
            <li key={page.to}>
              <NavLink to={page.to} end={page.end}>
                {page.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <Routes>
          <Route path="/" element={<DashboardPage />} />
          <Route path="/receipts" element={<ReceiptsPage />} />
          <Route path="/receipts/:svcpoid" element={<ReceiptPage />} />
          <Route path="/orders" element={<OrdersPage />} />
          <Route path="/orders/:svcpoid" element={<OrderPage />} />
          <Route path="/inventory" element={<InventoryPage />} />
          <Route path="/items" element={<ItemsPage />} />
          {admin && <Route path="/rate-cards" element={<RateCardsPage />} />}
          {admin && <Route path="/api-keys" element={<ApiKeysPage />} />}
          {admin && <Route path="/webhooks" element={<WebhooksPage />} />}
          <Route path="*" element={<Navigate to="/" replace />} />
        </Routes>
      </main>
    </div>
  );
}
