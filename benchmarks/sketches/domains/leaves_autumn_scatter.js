// Autumn leaves: six pointed leaves in red, orange and gold scattered loosely, veins in a darker glaze.
function setup() {
  createCanvas(600, 600, WEBGL);
  noLoop();
}

function wash(col, op, bleed, tex, border) {
  brush.fill(col, op);
  brush.fillBleed(bleed);
  brush.fillTexture(tex, border);
}

function leaf(x, y, ang, len, wide) {
  brush.beginShape(0.8);
  brush.vertex(x, y);
  brush.vertex(x + len * 0.5 * cos(ang) - wide * sin(ang), y + len * 0.5 * sin(ang) + wide * cos(ang));
  brush.vertex(x + len * cos(ang), y + len * sin(ang));
  brush.vertex(x + len * 0.5 * cos(ang) + wide * sin(ang), y + len * 0.5 * sin(ang) - wide * cos(ang));
  brush.endShape(CLOSE);
}

function draw() {
  translate(-width / 2, -height / 2);
  background(250, 246, 238);
  brush.noStroke();
  const spots = [[150, 170, 0.6], [330, 130, 2.2], [470, 260, 1.2], [240, 340, 3.6], [420, 450, 5.0], [160, 480, 4.2]];
  const cols = ["#d9532f", "#e98a3a", "#e4b43c", "#b93a2a", "#d8742e", "#c9a236"];
  for (let k = 0; k < spots.length; k++) {
    const [x, y, a] = spots[k];
    wash(cols[k], 200, 0.35, 0.5, 0.6);
    leaf(x, y, a, 140, 45);
    wash("#7b2a1e", 150, 0.15, 0.4, 0.5);
    leaf(x, y, a, 130, 4);
  }
}
